'use client';

// Settings › Backups (issue 63): back up now (with its progress), the daily schedule, and the
// folder's backups with their size, age and a download. `npm run restore` brings one back.
import { useCallback, useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorBanner } from '@/components/ui/error-banner';
import { ScrollX } from '@/components/ui/scroll-x';
import { errorText } from '@/lib/errors/error-text';

interface Schedule {
  enabled: boolean;
  hour: number;
  time_zone: string;
  keep: number;
  folder: string;
  passphrase_set: boolean;
}
interface Job {
  id: string;
  status: 'running' | 'done' | 'failed';
  progress: number;
  step: string;
  secrets: 'sealed' | 'left-out';
  error: string | null;
  size: number | null;
}
interface Listing {
  id: string;
  size: number;
  created_at: string;
}
interface BackupsJson {
  backups: Listing[];
  job: Job | null;
  schedule: Schedule;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function age(iso: string, now: number): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 36 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

const input = 'rounded border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700';

export function BackupsSettings() {
  const [view, setView] = useState<BackupsJson | null>(null);
  const [form, setForm] = useState<Schedule | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  // No passphrase saved: asked first whether to leave the secrets out (issue 75 §9), never silently.
  const [askingSecrets, setAskingSecrets] = useState(false);

  const load = useCallback(
    () =>
      apiFetch<BackupsJson>('/api/backups').then(
        (json) => {
          setView(json);
          setForm((current) => current ?? json.schedule);
          setNow(Date.now());
        },
        (caught: Error) => setError(caught.message),
      ),
    [],
  );
  useEffect(() => void load(), [load]);
  // While a backup runs, its progress every half second.
  const running = view?.job?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void load(), 500);
    return () => clearInterval(timer);
  }, [running, load]);

  const backUpNow = async () => {
    setError(null);
    try {
      const { backup } = await apiFetch<{ backup: Job }>('/api/backups', { method: 'POST', body: {} });
      setView((current) => current && { ...current, job: backup });
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!form) return;
    setError(null);
    setSaved(false);
    try {
      const body = { enabled: form.enabled, hour: form.hour, time_zone: form.time_zone, keep: form.keep, folder: form.folder, ...(passphrase && { passphrase }) };
      const { schedule } = await apiFetch<{ schedule: Schedule }>('/api/backups/schedule', { method: 'PUT', body });
      setForm(schedule);
      setPassphrase('');
      setSaved(true);
      await load();
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  const job = view?.job;
  return (
    <section aria-labelledby="backups-heading" className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="backups-heading" className="text-lg font-semibold">
        Backups
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        The whole app in one file: conversations, memories, people, channels, schedules, personas, skills, workspaces and the browser&apos;s sign-ins. Bring
        one back on a fresh machine with <code>npm run restore -- --from FILE</code>.
      </p>
      {error && <ErrorBanner message={error} />}
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900" onClick={() => (view?.schedule.passphrase_set ? void backUpNow() : setAskingSecrets(true))} disabled={!view || running}>
          Back up now
        </button>
        {job && (
          <p role="status" className="text-sm" aria-label="Backup progress">
            {job.status === 'running' && (
              <>
                <progress className="mr-2 align-middle" max={1} value={job.progress} /> {Math.floor(job.progress * 100)}% · {job.step}
              </>
            )}
            {job.status === 'done' && `Done: ${job.id} (${size(job.size ?? 0)}, secrets ${job.secrets === 'sealed' ? 'sealed with the passphrase' : 'left out'}).`}
            {job.status === 'failed' && <span className="text-red-700 dark:text-red-400">The last backup failed: {job.error}</span>}
          </p>
        )}
      </div>

      <ConfirmDialog
        open={askingSecrets}
        title="Back up without the secrets?"
        message="No passphrase is saved, so this backup leaves the sealing key and the saved API keys out: after a restore, channel tokens and keys are typed again. To keep them, cancel, type a passphrase below and save the schedule first."
        confirmLabel="Back up without secrets"
        onCancel={() => {
          setAskingSecrets(false);
          document.querySelector<HTMLInputElement>('input[aria-label="Passphrase"]')?.focus();
        }}
        onConfirm={() => {
          setAskingSecrets(false);
          void backUpNow();
        }}
      />
      <h3 className="text-sm font-medium">In {view?.schedule.folder ?? '…'}</h3>
      {view && view.backups.length === 0 && <p className="text-sm text-zinc-500">No backups yet.</p>}
      {view && view.backups.length > 0 && (
        <ScrollX label="Backups (table)">
          <table className="w-full text-sm" aria-label="Backups">
            <thead className="text-left text-zinc-500">
              <tr>
                <th className="font-normal">Backup</th>
                <th className="font-normal">Size</th>
                <th className="font-normal">Taken</th>
                <th className="font-normal" />
              </tr>
            </thead>
            <tbody>
              {view.backups.map((backup) => (
                <tr key={backup.id}>
                  <td className="font-mono text-xs">{backup.id}</td>
                  <td>{size(backup.size)}</td>
                  <td title={backup.created_at}>{age(backup.created_at, now)}</td>
                  <td className="text-right">
                    <a className="underline" href={`/api/backups/${backup.id}/download`} download>
                      Download
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollX>
      )}

      {form && (
        <form onSubmit={save} className="space-y-2 border-t border-zinc-200 pt-3 dark:border-zinc-800" aria-label="Backup schedule">
          <h3 className="text-sm font-medium">Every day</h3>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={form.enabled} onChange={(event) => setForm({ ...form, enabled: event.target.checked })} /> Back up daily
          </label>
          <div className="flex flex-wrap gap-3 text-sm">
            <label className="flex items-center gap-1">
              at
              <select className={input} value={form.hour} onChange={(event) => setForm({ ...form, hour: Number(event.target.value) })} aria-label="Hour">
                {Array.from({ length: 24 }, (_, hour) => (
                  <option key={hour} value={hour}>
                    {String(hour).padStart(2, '0')}:00
                  </option>
                ))}
              </select>
              <span className="text-zinc-500">({form.time_zone})</span>
            </label>
            <label className="flex items-center gap-1">
              keep the last
              <input className={`${input} w-16`} type="number" min={1} max={365} value={form.keep} onChange={(event) => setForm({ ...form, keep: Number(event.target.value) })} aria-label="Keep" />
            </label>
          </div>
          <label className="block text-sm">
            Folder
            <input className={`${input} block w-full font-mono`} value={form.folder} onChange={(event) => setForm({ ...form, folder: event.target.value })} aria-label="Folder" />
            <span className="text-xs text-zinc-500">Another disk than the data folder&apos;s, if you have one: a backup on the same disk dies with it.</span>
          </label>
          <label className="block text-sm">
            Passphrase {form.passphrase_set ? '(saved — type a new one to change it)' : '(none: the sealing key and saved API keys are left out and typed again after a restore)'}
            <input className={`${input} block w-full`} type="password" autoComplete="new-password" value={passphrase} onChange={(event) => setPassphrase(event.target.value)} aria-label="Passphrase" />
            <span className="text-xs text-zinc-500">At least 8 characters. Keep it somewhere else too: a restore needs it to open the keys.</span>
          </label>
          <div className="flex items-center gap-3">
            <button type="submit" className="rounded border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700">
              Save schedule
            </button>
            {saved && <span className="text-sm text-green-700 dark:text-green-400">Saved.</span>}
          </div>
        </form>
      )}
    </section>
  );
}
