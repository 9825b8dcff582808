// The OpenAI-compatible door (issue 46 §2): a chat completion is the newest user message delivered
// to the key's session of the persona the model names, answered by the mind (lib/http/openai-door.ts).
// The app's server answers this path itself, without Next's router (lib/http/web-bridge.ts); this
// route is the same handler for Next's own serving of the app (`next start`, the door tests).
import { postChatCompletion } from '@/lib/http/openai-door';

export const dynamic = 'force-dynamic';

export const POST = postChatCompletion;
