'use client';

// The Skills page (issue 34): every skill with its description, files and the personas that have
// it (a checkbox each: the persona's graph gains or loses the skill); its instructions on demand;
// import from a .zip or a folder (global, or a persona's own); delete. Folders that do not pass
// their checks are listed with the reason.
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorBanner } from '@/components/ui/error-banner';
import { errorText } from '@/lib/errors/error-text';

interface SkillJson {
  name: string;
  description: string;
  source: string;
  files: { path: string; size: number }[];
  bytes: number;
  personas: string[];
}

interface Listing {
  skills: SkillJson[];
  problems: { folder: string; source: string; message: string }[];
  personas: string[];
}

const scopeQuery = (source: string) => (source.startsWith('persona:') ? `?persona=${encodeURIComponent(source.slice('persona:'.length))}` : '');

async function postForm(form: FormData): Promise<void> {
  const response = await fetch('/api/skills', { method: 'POST', body: form });
  if (!response.ok) {
    const payload = (await response.json().catch(() => null)) as { error?: { message: string } } | null;
    throw new Error(payload?.error?.message ?? `Import failed (${response.status})`);
  }
}

function SkillItem(props: { skill: SkillJson; personas: string[]; onChanged: () => void; onError: (message: string) => void }) {
  const { skill } = props;
  const [body, setBody] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const own = skill.source.startsWith('persona:') ? skill.source.slice('persona:'.length) : null;
  // Shown at once; put back if the server refuses.
  const [having, setHaving] = useState(skill.personas);
  useEffect(() => setHaving(skill.personas), [skill.personas]);
  const toggle = async (persona: string, enabled: boolean) => {
    const before = having;
    setHaving(enabled ? [...having, persona] : having.filter((name) => name !== persona));
    try {
      await apiFetch(`/api/skills/${skill.name}/personas/${encodeURIComponent(persona)}`, { method: 'PUT', body: { enabled } });
      props.onChanged();
    } catch (caught) {
      setHaving(before);
      props.onError(errorText(caught));
    }
  };
  const show = async () => {
    if (body !== null) return setBody(null);
    try {
      setBody((await apiFetch<{ skill: { body: string } }>(`/api/skills/${skill.name}${scopeQuery(skill.source)}`)).skill.body);
    } catch (caught) {
      props.onError(errorText(caught));
    }
  };
  return (
    <li className="space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-700" aria-label={`Skill ${skill.name}`}>
      <div className="flex flex-wrap items-baseline gap-2">
        <h2 className="font-mono font-semibold">{skill.name}</h2>
        <span className="rounded bg-zinc-100 px-1.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">{own ? `${own}’s own` : 'global'}</span>
        <span className="text-xs text-zinc-500">
          {skill.files.length} file{skill.files.length === 1 ? '' : 's'} · {(skill.bytes / 1024).toFixed(1)} KB
        </span>
        <span className="ml-auto flex gap-2">
          <button type="button" className="btn py-0.5 text-xs" onClick={() => void show()}>
            {body === null ? 'Show instructions' : 'Hide instructions'}
          </button>
          <button type="button" className="btn py-0.5 text-xs" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </span>
      </div>
      <p className="text-sm">{skill.description}</p>
      {skill.files.length > 0 && <p className="font-mono text-xs text-zinc-500">{skill.files.map((file) => file.path).join(' · ')}</p>}
      <fieldset className="flex flex-wrap gap-3 text-xs">
        <legend className="sr-only">Personas with {skill.name}</legend>
        <span className="text-zinc-500">Personas:</span>
        {(own ? [own] : props.personas).map((persona) => (
          <label key={persona} className="flex items-center gap-1">
            <input type="checkbox" checked={having.includes(persona)} onChange={(event) => void toggle(persona, event.target.checked)} />
            {persona}
          </label>
        ))}
      </fieldset>
      {body !== null && <pre className="max-h-80 overflow-auto rounded bg-zinc-100 p-2 text-xs whitespace-pre-wrap dark:bg-zinc-800" aria-label={`Instructions of ${skill.name}`}>{body}</pre>}
      <ConfirmDialog
        open={confirming}
        title={`Delete the skill ${skill.name}?`}
        message="Its folder is removed. Graphs that name it keep their node; it is simply not offered any more."
        confirmLabel="Delete"
        danger
        onCancel={() => setConfirming(false)}
        onConfirm={async () => {
          setConfirming(false);
          try {
            await apiFetch(`/api/skills/${skill.name}${scopeQuery(skill.source)}`, { method: 'DELETE' });
            props.onChanged();
          } catch (caught) {
            props.onError(errorText(caught));
          }
        }}
      />
    </li>
  );
}

export function SkillsBrowser() {
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    try {
      setListing(await apiFetch<Listing>('/api/skills'));
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const upload = async (files: File[], kind: 'archive' | 'folder') => {
    if (files.length === 0) return;
    const form = new FormData();
    if (target) form.append('persona', target);
    if (kind === 'archive') form.append('archive', files[0]!);
    else for (const file of files) form.append('files', file, file.webkitRelativePath || file.name);
    setBusy(true);
    try {
      await postForm(form);
      await load();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-4">
      <ErrorBanner message={error} />
      <section className="flex flex-wrap items-center gap-3 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-700" aria-label="Import a skill">
        <span className="font-medium">Import</span>
        <label className="btn cursor-pointer">
          A .zip
          <input type="file" accept=".zip,application/zip" className="sr-only" aria-label="Import a skill from a zip" disabled={busy} onChange={(event) => void upload([...(event.target.files ?? [])], 'archive').then(() => (event.target.value = ''))} />
        </label>
        <label className="btn cursor-pointer">
          A folder
          <input
            type="file"
            className="sr-only"
            aria-label="Import a skill from a folder"
            disabled={busy}
            {...({ webkitdirectory: '', directory: '' } as Record<string, string>)}
            multiple
            onChange={(event) => void upload([...(event.target.files ?? [])], 'folder').then(() => (event.target.value = ''))}
          />
        </label>
        <label className="flex items-center gap-1">
          for
          <select className="field w-auto py-0.5" value={target} onChange={(event) => setTarget(event.target.value)} aria-label="Install for">
            <option value="">every persona (global)</option>
            {(listing?.personas ?? []).map((persona) => (
              <option key={persona} value={persona}>
                {persona} only
              </option>
            ))}
          </select>
        </label>
        {busy && <span className="text-zinc-500">Importing…</span>}
      </section>
      {listing && listing.skills.length === 0 && <p className="text-zinc-500">No skills installed. Import one, or put a folder with a SKILL.md in skills/.</p>}
      <ul className="space-y-3" aria-label="Skills">
        {(listing?.skills ?? []).map((skill) => (
          <SkillItem key={`${skill.source}:${skill.name}`} skill={skill} personas={listing!.personas} onChanged={() => void load()} onError={setError} />
        ))}
      </ul>
      {listing && listing.problems.length > 0 && (
        <section className="space-y-1 text-sm" aria-label="Folders that are not skills">
          <h2 className="font-medium">Not offered</h2>
          <ul className="list-disc pl-5 text-amber-800 dark:text-amber-300">
            {listing.problems.map((problem) => (
              <li key={`${problem.source}:${problem.folder}`}>
                <span className="font-mono">{problem.folder}</span> ({problem.source}): {problem.message}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
