// The app's settings alone as a file another install imports (issue 63 §4): no secret in it.
import { exportSettings } from '@/lib/http/settings-travel';
import { handle } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const file = await exportSettings();
  return new Response(`${JSON.stringify(file, null, 2)}\n`, {
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="agentcsd-settings-${file.exported_at!.slice(0, 10)}.json"`, 'cache-control': 'no-store' },
  });
});
