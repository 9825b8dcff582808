'use client';

import { ScrollX } from '@/components/ui/scroll-x';
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import type { SandboxStatus } from '@/lib/tools/sandbox';
import { TrustedSources } from './trusted-sources';
import { errorText } from '@/lib/errors/error-text';

const MEMORY_TOOLS = new Set(['recall', 'remember', 'journal']);

interface ToolInfo {
  name: string;
  description: string;
  approval: 'never' | 'required';
  source: 'builtin' | { mcpServer: string };
}

interface RuleJson {
  id: string;
  scope: 'session' | 'persona';
  session_id: string | null;
  persona: string | null;
  tool: string;
  effect: 'allow' | 'deny';
  matcher: { kind: string; argv?: string[]; code?: string; glob?: string };
  created_at: string;
}

function describeMatcher(rule: RuleJson): string {
  const matcher = rule.matcher;
  if (matcher.kind === 'tool') return 'every call';
  if (matcher.kind === 'command') return `exactly: ${matcher.argv?.join(' ')}`;
  if (matcher.kind === 'command-prefix') return `starting with: ${matcher.argv?.join(' ')}`;
  if (matcher.kind === 'code') return `exactly this code (${matcher.code?.length ?? 0} characters)`;
  return `paths matching ${matcher.glob}`;
}

/** Settings › Tools: the sandbox (working, or why not), the built-in tools, and the standing rules. */
export function ToolsSettings() {
  const [sandbox, setSandbox] = useState<SandboxStatus | null>(null);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const [rules, setRules] = useState<RuleJson[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const load = useCallback(async (refresh = false) => {
    setChecking(true);
    try {
      const [status, listed] = await Promise.all([
        apiFetch<{ sandbox: SandboxStatus; tools: ToolInfo[] }>(`/api/tools${refresh ? '?refresh=1' : ''}`),
        apiFetch<{ rules: RuleJson[] }>('/api/tool-rules'),
      ]);
      setSandbox(status.sandbox);
      setTools(status.tools.filter((tool) => tool.source === 'builtin')); // MCP tools: their own section
      setRules(listed.rules);
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setChecking(false);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function revoke(id: string) {
    try {
      await apiFetch(`/api/tool-rules/${id}`, { method: 'DELETE' });
      setRules((current) => current.filter((rule) => rule.id !== id));
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <section aria-labelledby="tools-heading" className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="tools-heading" className="text-lg font-semibold">
        Tools
      </h2>
      <ErrorBanner message={error} />
      <div role="status" aria-label="Sandbox status" className="text-sm">
        {sandbox === null ? (
          <p aria-busy="true">Checking the sandbox…</p>
        ) : sandbox.available ? (
          <p>
            <span className="font-medium text-green-700 dark:text-green-400">Sandbox working</span> — {sandbox.bwrapVersion}
            {sandbox.runsAs === 'nobody' ? ', commands run as nobody (the app runs as root)' : ''}. bash and python run with no network, the workspace as the only writable folder, and a time limit.
          </p>
        ) : (
          <p>
            <span className="font-medium text-red-700 dark:text-red-400">Sandbox not available</span> — {sandbox.reason}. bash and python are disabled until it works; the file tools still work.
          </p>
        )}
        <button type="button" className="btn mt-2" disabled={checking} onClick={() => void load(true)}>
          Check again
        </button>
      </div>
      <ScrollX label="Built-in tools (table)">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Built-in tools</caption>
          <thead>
            <tr className="text-xs text-zinc-500">
              <th className="py-1">Tool</th>
              <th>What it does</th>
              <th>Approval</th>
            </tr>
          </thead>
          <tbody>
            {tools.map((tool) => (
              <tr key={tool.name} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                <td className="py-1 pr-3 font-mono">{tool.name}</td>
                <td className="pr-3">{tool.description}</td>
                <td className="whitespace-nowrap">{tool.approval === 'required' ? 'asks you first' : MEMORY_TOOLS.has(tool.name) ? "none (this persona's memory)" : 'none (workspace only)'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollX>
      <div>
        <h3 className="font-medium">Always-allow and deny rules</h3>
        {rules.length === 0 ? (
          <p className="text-sm text-zinc-500">None. Choose &ldquo;Always allow&rdquo; on a card to add one.</p>
        ) : (
          <ul className="space-y-1 text-sm" aria-label="Rules">
            {rules.map((rule) => (
              <li key={rule.id} className="flex flex-wrap items-center gap-2">
                <span className={rule.effect === 'allow' ? 'text-green-700 dark:text-green-400' : 'text-red-700 dark:text-red-400'}>{rule.effect}</span>
                <span className="font-mono">{rule.tool}</span>
                <span>{describeMatcher(rule)}</span>
                <span className="text-xs text-zinc-500">{rule.scope === 'persona' ? `persona ${rule.persona}` : `session ${rule.session_id?.slice(0, 8)}`}</span>
                <button type="button" className="btn ml-auto py-0.5 text-xs" onClick={() => void revoke(rule.id)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <TrustedSources />
    </section>
  );
}
