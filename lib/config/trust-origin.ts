// The source a card's reason names, when it is one the owner can trust for good (issue 44 §4: "trust
// news for reads" from the card itself): a web host, an MCP server or a skill, read from the labels
// `originLabel` writes (trust-config.ts) wherever they stand in a reason — also inside a derived one
// ("a memory written after reading the MCP server "news""). Only those three; the button says which.

export interface TrustableOrigin {
  kind: 'host' | 'mcp_server' | 'skill';
  name: string;
}

const patterns: [TrustableOrigin['kind'], RegExp][] = [
  ['host', /the web page\(s\) of ([a-z0-9.-]+(?::\d{1,5})?)/i],
  ['mcp_server', /the MCP server "([^"\n]{1,64})"/],
  ['skill', /the files of the skill "([a-z0-9][a-z0-9-]{0,63})"/],
];

export function trustableOrigin(reason: string | null | undefined): TrustableOrigin | null {
  if (!reason) return null;
  let found: { origin: TrustableOrigin; at: number } | null = null;
  for (const [kind, pattern] of patterns) {
    const match = pattern.exec(reason);
    if (match && (!found || match.index < found.at)) found = { origin: { kind, name: kind === 'host' ? match[1]!.toLowerCase() : match[1]! }, at: match.index };
  }
  return found?.origin ?? null;
}

export function trustLabel(origin: TrustableOrigin): string {
  return origin.kind === 'host' ? `the host ${origin.name}` : origin.kind === 'mcp_server' ? `the MCP server "${origin.name}"` : `the skill "${origin.name}"`;
}
