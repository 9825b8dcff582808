import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { handle } from '@/lib/http/route-helpers';

export const dynamic = 'force-dynamic';

/** The Slack app manifest AgentCSD ships (docs/slack-app-manifest.yml), for the Channels form to show and copy. */
export const GET = handle(async () => {
  const manifest = await readFile(path.join(process.cwd(), 'docs', 'slack-app-manifest.yml'), 'utf8');
  return new Response(manifest, { headers: { 'content-type': 'text/yaml; charset=utf-8' } });
});
