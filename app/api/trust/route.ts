import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { trustSettingsSchema } from '@/lib/config/trust-config';
import { readTrust, writeTrust } from '@/lib/store/untrusted-repository';

export const dynamic = 'force-dynamic';

/** The hosts, MCP servers and skills the user trusts (Settings › Tools): their content does not make a turn untrusted (§20). */
export const GET = handle(async () => Response.json({ trust: await readTrust() }));

export const PUT = handle(async (request) => {
  const body = await readJsonBody(request, trustSettingsSchema);
  const trust = { hosts: [...new Set(body.hosts)].sort(), mcp_servers: [...new Set(body.mcp_servers)].sort(), skills: [...new Set(body.skills)].sort() };
  await writeTrust(trust);
  return Response.json({ trust });
});
