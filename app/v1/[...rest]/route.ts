// A path under /v1/ that no door serves: a JSON 404 in OpenAI's shape, never the page's HTML 404
// (a client of the doors reads JSON; red-team round 4).
export const dynamic = 'force-dynamic';

const notFound = () =>
  Response.json({ error: { message: 'No such door path: /v1/models, /v1/chat/completions, /v1/responses and /v1/agentcsd/… are served here (docs/doors.md).', type: 'invalid_request_error', param: null, code: 'not_found' } }, { status: 404 });

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
