import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { ApiError } from '@/lib/http/api-error';
import { allowancesInputSchema } from '@/lib/config/allowance-config';
import { dayFigures, listAllowances, replaceAllowances, type AllowanceRecord } from '@/lib/store/allowances-repository';
import { findPerson } from '@/lib/store/people-repository';
import { personaExists } from '@/lib/personas/persona-files';

export const dynamic = 'force-dynamic';

/** The allowances and today's figures of each (in its own time zone): spent, reserved by calls running, the limits. */
async function answer() {
  const allowances = await listAllowances();
  const today = await dayFigures(allowances, new Date());
  return Response.json({
    allowances: allowances.map(allowanceJson),
    today: today.map((figures) => ({
      scope: figures.allowance.scope,
      scope_id: figures.allowance.scopeId,
      day: figures.day,
      spent: { usd: figures.spentUsd, tokens: figures.spentTokens },
      reserved: { usd: figures.reservedUsd, tokens: figures.reservedTokens },
      limit: { usd: figures.allowance.usdPerDay, tokens: figures.allowance.tokensPerDay },
    })),
  });
}

function allowanceJson(allowance: AllowanceRecord) {
  return { scope: allowance.scope, scope_id: allowance.scopeId, usd_per_day: allowance.usdPerDay, tokens_per_day: allowance.tokensPerDay, time_zone: allowance.timeZone };
}

export const GET = handle(answer);

/** Replaces the list (what it leaves out is gone); each names a persona or a person that exists. */
export const PUT = handle(async (request) => {
  const { allowances } = await readJsonBody(request, allowancesInputSchema);
  for (const allowance of allowances) {
    if (allowance.scope === 'persona' && !personaExists(allowance.scope_id)) throw new ApiError('not_found', `No persona ${allowance.scope_id}`);
    if (allowance.scope === 'person' && !(await findPerson(allowance.scope_id))) throw new ApiError('not_found', `No person ${allowance.scope_id}`);
  }
  await replaceAllowances(
    allowances.map((allowance) => ({ id: `${allowance.scope}:${allowance.scope_id}`, scope: allowance.scope, scopeId: allowance.scope_id, usdPerDay: allowance.usd_per_day, tokensPerDay: allowance.tokens_per_day, timeZone: allowance.time_zone })),
    new Date(),
  );
  return answer();
});
