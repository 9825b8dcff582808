'use client';

import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { errorText } from '@/lib/errors/error-text';

interface Trust {
  hosts: string[];
  mcp_servers: string[];
  skills: string[];
}

const lines = (text: string) => text.split(/[\s,]+/).map((line) => line.trim()).filter(Boolean);

/**
 * Settings › Tools › Trusted sources: content from anywhere else (a web page, an MCP server, a
 * webhook, an imported file) makes every later call that sends data out ask first (§20).
 */
export function TrustedSources() {
  const [hosts, setHosts] = useState('');
  const [servers, setServers] = useState('');
  const [skills, setSkills] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    apiFetch<{ trust: Trust }>('/api/trust')
      .then(({ trust }) => {
        setHosts(trust.hosts.join('\n'));
        setServers(trust.mcp_servers.join('\n'));
        setSkills(trust.skills.join('\n'));
      })
      .catch((caught: Error) => setError(caught.message));
  }, []);

  async function save() {
    setSaved(false);
    try {
      const { trust } = await apiFetch<{ trust: Trust }>('/api/trust', { method: 'PUT', body: { hosts: lines(hosts), mcp_servers: lines(servers), skills: lines(skills) } });
      setHosts(trust.hosts.join('\n'));
      setServers(trust.mcp_servers.join('\n'));
      setSkills(trust.skills.join('\n'));
      setError(null);
      setSaved(true);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <div className="space-y-2" aria-labelledby="trusted-sources-heading">
      <h3 id="trusted-sources-heading" className="font-medium">
        Trusted sources
      </h3>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Text from outside — web pages, MCP servers&apos; results and unapproved tool descriptions, webhooks, imported sessions, files of skills the app did not ship, memories written from them — is untrusted. Once a
        session holds some, every call that sends data out (http_get, http_request, MCP tools, schedules, database writes) asks you first, even where a rule allows it. List the
        hosts, MCP servers and skills whose content you trust.
      </p>
      <ErrorBanner message={error} />
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="block text-sm">
          <span className="text-xs text-zinc-500">Hosts (one per line, with the port when not the default)</span>
          <textarea className="field font-mono text-[12px]" rows={3} value={hosts} onChange={(event) => setHosts(event.target.value)} placeholder="docs.python.org" />
        </label>
        <label className="block text-sm">
          <span className="text-xs text-zinc-500">MCP servers (their names in Settings)</span>
          <textarea className="field font-mono text-[12px]" rows={3} value={servers} onChange={(event) => setServers(event.target.value)} placeholder="github" />
        </label>
        <label className="block text-sm">
          <span className="text-xs text-zinc-500">Skills (their names)</span>
          <textarea className="field font-mono text-[12px]" rows={3} value={skills} onChange={(event) => setSkills(event.target.value)} placeholder="pdf-tools" />
        </label>
      </div>
      <button type="button" className="btn" onClick={() => void save()}>
        Save trusted sources
      </button>
      {saved && <span className="ml-2 text-sm text-green-700 dark:text-green-400">Saved.</span>}
    </div>
  );
}
