// A speech server on this machine, for Settings › Voice's "Use it" (issue 76 §1): {found: [{name, endpoint, model}]}.
import { handle } from '@/lib/http/route-helpers';
import { detectSpeechServers } from '@/lib/voice/detect-speech';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => Response.json({ found: await detectSpeechServers() }));
