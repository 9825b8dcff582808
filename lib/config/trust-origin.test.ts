import { describe, expect, it } from 'vitest';
import { originLabel } from './trust-config';
import { trustableOrigin } from './trust-origin';

describe('the source a card can trust', () => {
  it("reads each kind of originLabel's label, also inside a derived reason", () => {
    expect(trustableOrigin(originLabel({ kind: 'host', host: 'News.Example:8443' }))).toEqual({ kind: 'host', name: 'news.example:8443' });
    expect(trustableOrigin(originLabel({ kind: 'mcp_server', server: 'news' }))).toEqual({ kind: 'mcp_server', name: 'news' });
    expect(trustableOrigin(originLabel({ kind: 'skill', skill: 'field-notes' }))).toEqual({ kind: 'skill', name: 'field-notes' });
    expect(trustableOrigin('a memory written after reading the MCP server "news" (recalled: it matched this turn better than anything trusted)')).toEqual({ kind: 'mcp_server', name: 'news' });
  });

  it('offers nothing for a source that cannot be trusted for good', () => {
    expect(trustableOrigin('the payload of the webhook "deploys"')).toBeNull();
    expect(trustableOrigin('the imported file of the session "x"')).toBeNull();
    expect(trustableOrigin(null)).toBeNull();
  });
});
