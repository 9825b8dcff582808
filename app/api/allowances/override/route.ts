import { handle } from '@/lib/http/route-helpers';
import { overrideUntil, setOverride } from '@/lib/mind/allowance-guard';

export const dynamic = 'force-dynamic';

/** The owner's one-click override: their own replies go past the allowances until the app's next midnight. */
export const POST = handle(async () => Response.json({ override_until: (await setOverride(new Date()))!.toISOString() }));

/** Ends the override now. */
export const DELETE = handle(async () => {
  await setOverride(null);
  return Response.json({ override_until: null });
});

export const GET = handle(async () => Response.json({ override_until: (await overrideUntil(new Date()))?.toISOString() ?? null }));
