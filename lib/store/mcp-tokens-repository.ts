// OAuth sign-ins to remote MCP servers as rows of `mcp_tokens` (issue 30). Secret columns are
// sealed (secret-box) and bound to their server's name and column; what the rest of the app reads
// is already opened. A refresh is claimed by compare-and-set on refresh_lock_until, so of any
// number of processes one refreshes.
import { getDb } from './db';
import { open, seal } from './secret-box';

export interface McpAuthRecord {
  serverName: string;
  serverUrl: string;
  clientInformation: Record<string, unknown> | null;
  tokens: Record<string, unknown> | null;
  discovery: Record<string, unknown> | null;
  codeVerifier: string | null;
  pendingRedirect: string | null;
  expiresAt: Date | null;
  needsSignIn: string | null;
  updatedAt: Date;
}

type SecretColumn = 'clientInformation' | 'tokens' | 'codeVerifier';
const bound = (serverName: string, column: SecretColumn) => `mcp_tokens:${serverName}:${column}`;

function openJson(serverName: string, column: SecretColumn, value: string | null): Record<string, unknown> | null {
  if (value === null) return null;
  const plain = open(value, bound(serverName, column));
  if (plain === null) return null;
  try {
    return JSON.parse(plain) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export async function readMcpAuth(serverName: string): Promise<McpAuthRecord | null> {
  const row = await (await getDb()).mcpToken.findUnique({ where: { serverName } });
  if (!row) return null;
  return {
    serverName,
    serverUrl: row.serverUrl,
    clientInformation: openJson(serverName, 'clientInformation', row.clientInformation),
    tokens: openJson(serverName, 'tokens', row.tokens),
    discovery: row.discovery ? (JSON.parse(row.discovery) as Record<string, unknown>) : null,
    codeVerifier: row.codeVerifier ? open(row.codeVerifier, bound(serverName, 'codeVerifier')) : null,
    pendingRedirect: row.pendingRedirect,
    expiresAt: row.expiresAt,
    needsSignIn: row.needsSignIn,
    updatedAt: row.updatedAt,
  };
}

const cleared = {
  clientInformation: null,
  tokens: null,
  discovery: null,
  codeVerifier: null,
  pendingState: null,
  pendingRedirect: null,
  pendingExpiresAt: null,
  expiresAt: null,
  needsSignIn: null,
  refreshLockUntil: null,
  refreshLockOwner: null,
};

/** The server's row, made when missing; a row kept for another URL starts over (nothing carried to the new one). */
export async function ensureMcpAuth(serverName: string, serverUrl: string): Promise<void> {
  const db = await getDb();
  const row = await db.mcpToken.findUnique({ where: { serverName }, select: { serverUrl: true } });
  if (!row) await db.mcpToken.upsert({ where: { serverName }, create: { serverName, serverUrl }, update: {} });
  else if (row.serverUrl !== serverUrl) await db.mcpToken.update({ where: { serverName }, data: { ...cleared, serverUrl, updatedAt: new Date() } });
}

export async function saveMcpClientInformation(serverName: string, information: Record<string, unknown>): Promise<void> {
  await (await getDb()).mcpToken.update({
    where: { serverName },
    data: { clientInformation: seal(JSON.stringify(information), bound(serverName, 'clientInformation')), updatedAt: new Date() },
  });
}

/** New tokens: the sign-in under way (if any) is over and the server no longer needs one. */
export async function saveMcpTokens(serverName: string, tokens: Record<string, unknown>, expiresAt: Date | null): Promise<void> {
  await (await getDb()).mcpToken.update({
    where: { serverName },
    data: {
      tokens: seal(JSON.stringify(tokens), bound(serverName, 'tokens')),
      expiresAt,
      needsSignIn: null,
      codeVerifier: null,
      pendingState: null,
      pendingRedirect: null,
      pendingExpiresAt: null,
      updatedAt: new Date(),
    },
  });
}

export async function saveMcpDiscovery(serverName: string, discovery: Record<string, unknown>): Promise<void> {
  await (await getDb()).mcpToken.update({ where: { serverName }, data: { discovery: JSON.stringify(discovery), updatedAt: new Date() } });
}

/** The sign-in the browser is sent to: its state (hashed), redirect and verifier, valid until `expiresAt`. */
export async function beginMcpSignIn(serverName: string, input: { stateHash: string; redirect: string; expiresAt: Date }): Promise<void> {
  await (await getDb()).mcpToken.update({
    where: { serverName },
    data: { pendingState: input.stateHash, pendingRedirect: input.redirect, pendingExpiresAt: input.expiresAt, codeVerifier: null, updatedAt: new Date() },
  });
}

export async function saveMcpCodeVerifier(serverName: string, verifier: string): Promise<void> {
  await (await getDb()).mcpToken.update({ where: { serverName }, data: { codeVerifier: seal(verifier, bound(serverName, 'codeVerifier')), updatedAt: new Date() } });
}

/** The server whose sign-in is waiting for this state, unless it expired. */
export async function findMcpSignIn(stateHash: string, now: Date): Promise<string | null> {
  const row = await (await getDb()).mcpToken.findUnique({ where: { pendingState: stateHash }, select: { serverName: true, pendingExpiresAt: true } });
  if (!row || !row.pendingExpiresAt || row.pendingExpiresAt <= now) return null;
  return row.serverName;
}

/** The sign-in under way ends (used or refused): its state and verifier cannot be used again. */
export async function endMcpSignIn(serverName: string): Promise<void> {
  await (await getDb()).mcpToken.updateMany({ where: { serverName }, data: { pendingState: null, pendingRedirect: null, pendingExpiresAt: null, codeVerifier: null } });
}

export async function markMcpNeedsSignIn(serverName: string, reason: string, options: { dropTokens?: boolean } = {}): Promise<void> {
  await (await getDb()).mcpToken.updateMany({
    where: { serverName },
    data: { needsSignIn: reason.slice(0, 1_000), ...(options.dropTokens && { tokens: null, expiresAt: null }), updatedAt: new Date() },
  });
}

/** What the SDK asks to forget when a server said the credentials are no longer valid. */
export async function invalidateMcpAuth(serverName: string, scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
  const data =
    scope === 'all'
      ? { clientInformation: null, tokens: null, expiresAt: null, codeVerifier: null, discovery: null }
      : scope === 'client'
        ? { clientInformation: null }
        : scope === 'tokens'
          ? { tokens: null, expiresAt: null }
          : scope === 'verifier'
            ? { codeVerifier: null }
            : { discovery: null };
  await (await getDb()).mcpToken.updateMany({ where: { serverName }, data: { ...data, updatedAt: new Date() } });
}

export async function deleteMcpAuth(serverName: string): Promise<void> {
  await (await getDb()).mcpToken.deleteMany({ where: { serverName } });
}

/** Sign-ins of servers no longer configured go with them. */
export async function deleteMcpAuthExcept(serverNames: string[]): Promise<void> {
  await (await getDb()).mcpToken.deleteMany({ where: { serverName: { notIn: serverNames } } });
}

/** This process may refresh the server's token until `until`; false when another holds the claim. */
export async function claimMcpRefresh(serverName: string, owner: string, now: Date, until: Date): Promise<boolean> {
  const claimed = await (await getDb()).mcpToken.updateMany({
    where: { serverName, OR: [{ refreshLockUntil: null }, { refreshLockUntil: { lte: now } }, { refreshLockOwner: owner }] },
    data: { refreshLockUntil: until, refreshLockOwner: owner },
  });
  return claimed.count === 1;
}

export async function releaseMcpRefresh(serverName: string, owner: string): Promise<void> {
  await (await getDb()).mcpToken.updateMany({ where: { serverName, refreshLockOwner: owner }, data: { refreshLockUntil: null, refreshLockOwner: null } });
}

