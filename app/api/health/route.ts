import { getDb } from '@/lib/store/db';
import { handle } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const db = await getDb();
  await db.$queryRawUnsafe('SELECT 1');
  return Response.json({ ok: true, database: 'ok' });
});
