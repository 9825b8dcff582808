'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { McpSignIn } from './mcp-sign-in';
import type { McpSettings, McpToolPrefs } from '@/lib/config/mcp-config';
import type { McpServerStatus, McpToolStatus } from '@/lib/mcp/mcp-pool';
import { errorText } from '@/lib/errors/error-text';

type ServersJson = McpSettings & { servers: McpServerStatus[]; tool_search: { budget_tokens: number; definition_tokens: number; active: boolean } };

const example = `{
  "mcpServers": {
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"] },
    "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer …" } }
  }
}`;

const stateLabels: Record<McpServerStatus['state'], { text: string; className: string }> = {
  ready: { text: 'connected', className: 'text-green-700 dark:text-green-400' },
  starting: { text: 'starting…', className: 'text-amber-700 dark:text-amber-400' },
  failed: { text: 'failed', className: 'text-red-700 dark:text-red-400' },
  needs_sign_in: { text: 'needs sign-in', className: 'text-amber-700 dark:text-amber-400' },
  stopped: { text: 'off', className: 'text-zinc-500' },
};

function approvalChoice(tool: McpToolStatus): 'hint' | 'ask' | 'auto' {
  if (tool.auto_approve === null) return 'hint';
  return tool.auto_approve ? 'auto' : 'ask';
}

/** Settings › MCP servers: paste the configuration, see each server's state, test it, choose per tool. */
export function McpServersSettings() {
  const [data, setData] = useState<ServersJson | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // What the person typed is never replaced by a load that lands after it.
  const edited = useRef(false);

  const apply = useCallback((next: ServersJson, resetText: boolean) => {
    setData(next);
    if (resetText && !edited.current) setText(Object.keys(next.mcpServers).length ? JSON.stringify({ mcpServers: next.mcpServers }, null, 2) : '');
  }, []);

  const load = useCallback(
    async (resetText: boolean) => {
      try {
        apply(await apiFetch<ServersJson>('/api/mcp-servers'), resetText);
        setError(null);
      } catch (caught) {
        setError(errorText(caught));
      }
    },
    [apply],
  );

  useEffect(() => {
    void load(true);
    // Back from a sign-in (/oauth/callback): say how it went, once.
    const query = new URLSearchParams(window.location.search);
    const signedIn = query.get('mcp_signed_in');
    const failed = query.get('mcp_error');
    if (signedIn) setNotice(`${signedIn}: signed in.`);
    if (failed) setError(failed);
    if (signedIn || failed) window.history.replaceState(null, '', `${window.location.pathname}${window.location.hash}`);
  }, [load]);

  // While a server starts (or waits to retry), its state changes without us: look again.
  const unsettled = data?.servers.some((server) => server.state === 'starting' || server.next_retry_at !== null) ?? false;
  useEffect(() => {
    if (!unsettled) return;
    const timer = setInterval(() => void load(false), 1_500);
    return () => clearInterval(timer);
  }, [unsettled, load]);

  async function save(body: Partial<McpSettings>, message: string, resetText = false): Promise<boolean> {
    setBusy(true);
    try {
      apply(await apiFetch<ServersJson>('/api/mcp-servers', { method: 'PUT', body }), resetText);
      setError(null);
      setNotice(message);
      return true;
    } catch (caught) {
      setError(errorText(caught));
      setNotice(null);
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function saveText() {
    let parsed: unknown;
    try {
      parsed = text.trim() ? JSON.parse(text) : { mcpServers: {} };
    } catch (caught) {
      setError(`The configuration is not valid JSON: ${errorText(caught)}`);
      return;
    }
    const servers = (parsed as { mcpServers?: unknown }).mcpServers;
    if (typeof parsed !== 'object' || parsed === null || typeof servers !== 'object' || servers === null) {
      setError('Paste an object with "mcpServers", as in claude_desktop_config.json or .mcp.json');
      return;
    }
    edited.current = false;
    await save({ mcpServers: servers as McpSettings['mcpServers'] }, 'Saved. New and changed servers are starting.', true);
  }

  async function test(name: string) {
    setBusy(true);
    try {
      const result = await apiFetch<{ ok: boolean; tools: McpToolStatus[]; error: string | null }>(`/api/mcp-servers/${encodeURIComponent(name)}/test`, { method: 'POST' });
      setNotice(result.ok ? `${name}: connected, ${result.tools.length} tools.` : null);
      setError(result.ok ? null : `${name}: ${result.error}`);
      await load(false);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  function withTool(server: string, tool: string, patch: McpToolPrefs): McpSettings['tools'] {
    const tools = structuredClone(data!.tools);
    const merged = { ...tools[server]?.[tool], ...patch };
    for (const key of Object.keys(merged) as (keyof McpToolPrefs)[]) if (merged[key] === undefined) delete merged[key];
    tools[server] = { ...tools[server], [tool]: merged };
    return tools;
  }

  const current = (patch: Partial<McpSettings>): Partial<McpSettings> => ({ mcpServers: data!.mcpServers, tools: data!.tools, disabled: data!.disabled, ...patch });

  /** A tool's choice shows at once (the box flips as it is clicked), then is saved; a failed save reloads. */
  async function chooseForTool(server: string, tool: string, patch: McpToolPrefs, message: string) {
    const tools = withTool(server, tool, patch);
    setData((before) =>
      before && {
        ...before,
        tools,
        servers: before.servers.map((entry) =>
          entry.name !== server
            ? entry
            : {
                ...entry,
                tools: entry.tools.map((item) =>
                  item.name !== tool ? item : { ...item, ...('enabled' in patch && { enabled: patch.enabled !== false }), ...('auto_approve' in patch && { auto_approve: patch.auto_approve ?? null }) },
                ),
              },
        ),
      },
    );
    if (!(await save(current({ tools }), message))) await load(false);
  }

  /** The user read the server's tool descriptions: they stop counting as untrusted, and a later change is flagged. */
  async function approveDescriptions(server: string) {
    try {
      await apiFetch(`/api/mcp-servers/${encodeURIComponent(server)}/approve-descriptions`, { method: 'POST' });
      setNotice(`${server}: tool descriptions approved.`);
      await load(false);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <section id="mcp-servers" aria-labelledby="mcp-heading" className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="mcp-heading" className="text-lg font-semibold">
        MCP servers
      </h2>
      <p className="text-sm text-zinc-500">
        Paste Claude Desktop&rsquo;s <code>claude_desktop_config.json</code> or a project&rsquo;s <code>.mcp.json</code> unchanged. stdio servers run as your user with only
        PATH, HOME, locale and their own <code>env</code> (never the app&rsquo;s keys); their tools appear to the Internal Dialog as <code>server__tool</code>. A tool asks you
        first unless its server marks it read-only or you auto-approve it below.
      </p>
      <ErrorBanner message={error} />
      {notice && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {notice}
        </p>
      )}
      <label className="block text-sm">
        <span className="mb-1 block font-medium">Configuration</span>
        <textarea
          className="field h-40 font-mono text-xs"
          aria-label="MCP servers configuration"
          placeholder={example}
          spellCheck={false}
          value={text}
          onChange={(event) => {
            edited.current = true;
            setText(event.target.value);
          }}
        />
      </label>
      <p className="text-xs text-zinc-500">Secret values show as ••••1234; leave them so and they stay as stored.</p>
      <button type="button" className="btn btn-primary" disabled={busy || data === null} onClick={() => void saveText()}>
        Save servers
      </button>
      {data?.servers.length === 0 && <p className="text-sm text-zinc-500">No MCP servers yet.</p>}
      {data && data.servers.length > 0 && (
        <p className="text-xs text-zinc-500" data-testid="tool-search">
          The connected servers&rsquo; tools take ~{data.tool_search.definition_tokens.toLocaleString()} tokens of every prompt
          {data.tool_search.active
            ? ` — more than ${data.tool_search.budget_tokens.toLocaleString()}, so the agent searches for the tools it needs (search_tools) and only those are sent.`
            : data.tool_search.budget_tokens > 0
              ? `; above ${data.tool_search.budget_tokens.toLocaleString()} the agent would search for them instead.`
              : '; tool search is off (AGENTCSD_TOOL_SEARCH_TOKENS=0).'}
        </p>
      )}
      <ul className="space-y-3" aria-label="MCP servers">
        {data?.servers.map((server) => {
          const label = server.enabled ? stateLabels[server.state] : stateLabels.stopped;
          return (
            <li key={server.name} className="rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800" aria-label={`MCP server ${server.name}`}>
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-mono font-medium">{server.name}</span>
                <span className="text-xs text-zinc-500">{server.transport}</span>
                <span className={`text-xs font-medium ${label.className}`} data-testid="mcp-state">
                  {label.text}
                </span>
                <span className="text-xs text-zinc-500">
                  {server.tool_count} tools · ~{server.definition_tokens.toLocaleString()} definition tokens{server.restarts > 0 ? ` · restarted ${server.restarts}×` : ''}
                </span>
                <span className="ml-auto flex gap-2">
                  <McpSignIn
                    server={server}
                    busy={busy}
                    onError={setError}
                    onChanged={async (message) => {
                      setError(null);
                      setNotice(message);
                      await load(false);
                    }}
                  />
                  <button type="button" className="btn py-0.5 text-xs" disabled={busy || !server.enabled} onClick={() => void test(server.name)}>
                    Test
                  </button>
                  <button
                    type="button"
                    className="btn py-0.5 text-xs"
                    disabled={busy}
                    onClick={() =>
                      void save(
                        current({ disabled: server.enabled ? [...data.disabled, server.name] : data.disabled.filter((name) => name !== server.name) }),
                        server.enabled ? `${server.name} switched off.` : `${server.name} starting.`,
                      )
                    }
                  >
                    {server.enabled ? 'Turn off' : 'Turn on'}
                  </button>
                </span>
              </div>
              {server.state === 'needs_sign_in' && server.enabled && (
                <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">This server needs you to sign in: press Sign in, approve AgentCSD on its page, and you come back here.</p>
              )}
              {server.last_error && (
                <p className="mt-1 break-words font-mono text-xs text-red-700 dark:text-red-400">
                  {server.last_error}
                  {server.next_retry_at ? ` — retrying at ${new Date(server.next_retry_at).toLocaleTimeString()}` : ''}
                </p>
              )}
              {server.notes.map((note) => (
                <p key={note} className="mt-1 text-xs text-amber-700 dark:text-amber-400" data-testid="mcp-note">
                  {note}
                </p>
              ))}
              {server.tools.some((tool) => tool.description_state !== 'approved') && (
                <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">
                  {server.tools.some((tool) => tool.description_state === 'changed')
                    ? 'A tool description changed since you approved it (marked below): read it before approving again.'
                    : 'Tool descriptions not reviewed: until you approve them, a session offering these tools asks before anything is sent out.'}{' '}
                  <button type="button" className="btn py-0.5 text-xs" onClick={() => void approveDescriptions(server.name)}>
                    Approve descriptions
                  </button>
                </p>
              )}
              {server.tools.length > 0 && (
                <ScrollX label="Tools of the server (table)">
                  <table className="mt-2 w-full text-left text-xs">
                    <caption className="sr-only">Tools of {server.name}</caption>
                    <thead>
                      <tr className="text-zinc-500">
                        <th className="py-1">On</th>
                        <th>Tool</th>
                        <th>Approval</th>
                      </tr>
                    </thead>
                    <tbody>
                      {server.tools.map((tool) => (
                        <tr key={tool.name} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                          <td className="py-1 pr-2">
                            <input
                              type="checkbox"
                              aria-label={`${tool.name} on`}
                              checked={tool.enabled}
                              disabled={busy}
                              onChange={(event) => void chooseForTool(server.name, tool.name, { enabled: event.target.checked ? undefined : false }, `${tool.name} ${event.target.checked ? 'on' : 'off'}.`)}
                            />
                          </td>
                          <td className="pr-2">
                            <span className="font-mono">{tool.name}</span> <span className="text-zinc-500">{tool.description}</span>
                            {tool.description_state === 'changed' && (
                              <span role="note" className="mt-0.5 block text-red-700 dark:text-red-400">
                                ⚠ Changed since you approved it. It was: {tool.approved_description || '(empty)'}
                              </span>
                            )}
                          </td>
                          <td className="whitespace-nowrap">
                            <select
                              className="field w-auto py-0.5 text-xs"
                              aria-label={`${tool.name} approval`}
                              value={approvalChoice(tool)}
                              disabled={busy}
                              onChange={(event) => {
                                const choice = event.target.value;
                                const auto = choice === 'hint' ? undefined : choice === 'auto';
                                void chooseForTool(server.name, tool.name, { auto_approve: auto }, `${tool.name}: approval saved.`);
                              }}
                            >
                              <option value="hint">{tool.read_only ? 'runs (read-only)' : 'asks you'}</option>
                              <option value="ask">always ask</option>
                              <option value="auto">auto-approve</option>
                            </select>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </ScrollX>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
