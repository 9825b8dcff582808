import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '@/lib/config/mcp-config';
import {
  findUnrestoredMask,
  maskedMcpSettings,
  mcpSettingsSchema,
  mcpToolName,
  restoreMaskedSecrets,
  sameServerConfig,
} from '@/lib/config/mcp-config';

// As Claude Desktop's claude_desktop_config.json and a project's .mcp.json write them.
const claudeDesktop = {
  mcpServers: {
    filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
    github: { command: 'docker', args: ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_abcdefghijklmnop1234' } },
  },
};
const dotMcpJson = {
  mcpServers: {
    remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer secret-token-9876' } },
    local: { type: 'stdio', command: '/usr/local/bin/tool-server', args: [], env: {}, cwd: '/srv' },
  },
};

describe('the pasted configuration', () => {
  it('accepts Claude Desktop and .mcp.json shapes unchanged', () => {
    const desktop = mcpSettingsSchema.parse(claudeDesktop);
    expect(desktop.mcpServers.filesystem).toMatchObject({ command: 'npx', env: {} });
    expect(desktop).toMatchObject({ tools: {}, disabled: [] });
    const project = mcpSettingsSchema.parse(dotMcpJson);
    expect(project.mcpServers.remote).toMatchObject({ type: 'http', url: 'https://mcp.example.com/mcp' });
  });

  it.each([
    [{ mcpServers: { x: { args: ['a'] } } }, /command|url/],
    [{ mcpServers: { x: { type: 'http', url: 'file:///etc/passwd' } } }, /http/],
    [{ mcpServers: { x: { command: '' } } }, /command|url/],
    [{ mcpServers: { 'a/b': { command: 'x' } } }, /slashes/],
    [{ mcpServers: {}, extra: true }, /Unrecognized key/],
    [{ mcpServers: Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`s${index}`, { command: 'x' }])) }, /at most 32/],
  ])('refuses %j with a clear message', (input, pattern) => {
    const result = mcpSettingsSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.message).join('; ')).toMatch(pattern);
  });
});

describe('secrets', () => {
  it('a browser sees env and header values masked; sending the mask back keeps the stored value', () => {
    const stored = mcpSettingsSchema.parse({ ...claudeDesktop, mcpServers: { ...claudeDesktop.mcpServers, ...dotMcpJson.mcpServers } });
    const masked = maskedMcpSettings(stored);
    const text = JSON.stringify(masked);
    expect(text).not.toContain('ghp_abcdefghijklmnop1234');
    expect(text).not.toContain('secret-token-9876');
    expect(text).toContain('••••1234');
    const back = restoreMaskedSecrets(masked, stored);
    expect(back).toEqual(stored);
    expect(findUnrestoredMask(back)).toBeNull();
    // A new value replaces it; a mask that matches nothing stored is caught.
    const edited = restoreMaskedSecrets(
      mcpSettingsSchema.parse({ mcpServers: { github: { command: 'docker', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_new' } }, other: { command: 'x', env: { K: '••••1234' } } } }),
      stored,
    );
    expect(edited.mcpServers.github).toMatchObject({ env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_new' } });
    expect(findUnrestoredMask(edited)).toBe('other.env.K');
  });

  it('the same configuration with keys in another order is the same server', () => {
    expect(sameServerConfig({ command: 'a', args: ['1'], env: { A: '1', B: '2' } }, { env: { B: '2', A: '1' }, args: ['1'], command: 'a' })).toBe(true);
    expect(sameServerConfig({ command: 'a', args: ['1'], env: {} }, { command: 'a', args: ['2'], env: {} })).toBe(false);
  });
});

describe('tool names', () => {
  it('server__tool when both are clean, else cleaned, cut to 64 and made unique by a hash', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github__create_issue');
    const spaced = mcpToolName('my files', 'read');
    expect(spaced).toMatch(/^my_files__read_[0-9a-f]{6}$/);
    expect(mcpToolName('my.files', 'read')).not.toBe(spaced); // both clean to my_files: the hash separates them
    const long = mcpToolName('s'.repeat(40), 't'.repeat(40));
    expect(long).toHaveLength(64);
    for (const name of [spaced, long, mcpToolName('ünïcødé', 'tøøl'), mcpToolName('x', 'a/b:c')]) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});
