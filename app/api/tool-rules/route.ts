import { ApiError } from '@/lib/http/api-error';
import { handle, parseSearchParams, readJsonBody } from '@/lib/http/route-helpers';
import { findSession } from '@/lib/store/sessions-repository';
import { insertRule, listRules, type ToolRuleRecord } from '@/lib/store/tool-rules-repository';
import { createRuleBodySchema, rulesQuerySchema } from './schema';

export const dynamic = 'force-dynamic';

export function ruleJson(rule: ToolRuleRecord) {
  return { id: rule.id, scope: rule.scope, session_id: rule.sessionId, persona: rule.personaName, tool: rule.tool, effect: rule.effect, matcher: rule.matcher, created_at: rule.createdAt.toISOString() };
}

/** Always-allow and deny rules, for one session or persona or all. */
export const GET = handle(async (request) => {
  const query = parseSearchParams(request, rulesQuerySchema);
  const rules = await listRules({ ...(query.session_id && { sessionId: query.session_id }), ...(query.persona && { personaName: query.persona }) });
  return Response.json({ rules: rules.map(ruleJson) });
});

export const POST = handle(async (request) => {
  const body = await readJsonBody(request, createRuleBodySchema);
  if (body.session_id && !(await findSession({ id: body.session_id }))) throw new ApiError('not_found', `Session ${body.session_id} does not exist`);
  const rule = await insertRule({ scope: body.scope, sessionId: body.session_id ?? null, personaName: body.persona ?? null, tool: body.tool, effect: body.effect, matcher: body.matcher });
  return Response.json({ rule: ruleJson(rule) }, { status: 201 });
});
