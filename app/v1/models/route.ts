// The OpenAI-compatible door's model list (issue 46 §2): one model per persona the key may use.
import { doorHandler, doorKey, modelsFor } from '@/lib/http/openai-door';

export const dynamic = 'force-dynamic';

export const GET = doorHandler(async (request) => Response.json(modelsFor(await doorKey(request))));
