import { handle } from '@/lib/http/route-helpers';
import { checkBackends } from '@/lib/setup/backend-availability';

export const dynamic = 'force-dynamic';

/** What can answer on this machine (checked at start-up; the latest result). */
export const GET = handle(async () => Response.json({ availability: await checkBackends() }));

/** Check again now (the home page's "Check again"). */
export const POST = handle(async () => Response.json({ availability: await checkBackends({ force: true }) }));
