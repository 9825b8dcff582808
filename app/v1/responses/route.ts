// The Responses API door (issue 78 §1): the newest user message of a response request delivered to
// the key's session of the persona the model names, answered by the mind (lib/http/responses-door.ts).
import { postResponse } from '@/lib/http/responses-door';

export const dynamic = 'force-dynamic';

export const POST = postResponse;
