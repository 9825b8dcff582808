import { handle } from '@/lib/http/route-helpers';
import { healthReport } from '@/lib/http/health';

export const dynamic = 'force-dynamic';

/** 200 `{ ok: true, database: 'ok', disk: 'ok', … }`; 503 with what is down, in words (issue 73). */
export const GET = handle(async () => {
  const report = await healthReport();
  return Response.json(report, { status: report.ok ? 200 : 503 });
});
