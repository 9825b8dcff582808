'use client';

// Settings › Backups › Settings alone (issue 63 §4): the settings as a file for another install,
// and such a file imported here — with what was imported, skipped and must be typed again.
import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { errorText } from '@/lib/errors/error-text';

interface Report {
  imported: string[];
  skipped: string[];
  to_type_again: string[];
  /** Rules, trust and the backup folder: applied only once the owner has read them (issue 72 §3). */
  to_confirm: string[];
}

/** The parts of a settings file that wait for confirmation, as a file of their own. */
function confirmable(file: Record<string, unknown>): Record<string, unknown> {
  const { format, version, tool_rules, trust, backups } = file;
  return { format, version, ...(tool_rules !== undefined && { tool_rules }), ...(trust !== undefined && { trust }), ...(backups !== undefined && { backups }) };
}

export function SettingsTravel() {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<Record<string, unknown> | null>(null);

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setReport(null);
    setPending(null);
    try {
      let body: unknown;
      try {
        body = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not JSON: choose a file exported from Settings › Backups.`);
      }
      const { report: made } = await apiFetch<{ report: Report }>('/api/settings/import', { method: 'POST', body });
      setReport(made);
      if (made.to_confirm.length > 0 && body && typeof body === 'object') setPending(confirmable(body as Record<string, unknown>));
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  const applyConfirmed = async () => {
    if (!pending) return;
    setError(null);
    try {
      const { report: made } = await apiFetch<{ report: Report }>('/api/settings/import?confirm=true', { method: 'POST', body: pending });
      setPending(null);
      setReport((before) => ({ imported: [...(before?.imported ?? []), ...made.imported], skipped: [...(before?.skipped ?? []), ...made.skipped], to_type_again: [...(before?.to_type_again ?? []), ...made.to_type_again], to_confirm: [] }));
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  const list = (title: string, items: string[]) =>
    items.length > 0 && (
      <div>
        <h4 className="text-sm font-medium">{title}</h4>
        <ul className="list-disc pl-5 text-sm" aria-label={title}>
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </div>
    );

  return (
    <section aria-labelledby="settings-travel-heading" className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="settings-travel-heading" className="text-lg font-semibold">
        Settings alone
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Models, allowances, tool rules, trusted sources, MCP servers, channels and schedules as a file another install imports. No key, token or password is in
        it: the import says what to type again.
      </p>
      {error && <ErrorBanner message={error} />}
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <a className="rounded border border-zinc-300 px-3 py-1 dark:border-zinc-700" href="/api/settings/export" download>
          Export settings
        </a>
        <label className="cursor-pointer rounded border border-zinc-300 px-3 py-1 dark:border-zinc-700">
          Import settings…
          <input className="sr-only" type="file" accept="application/json,.json" aria-label="Import settings" onChange={(event) => void importFile(event.target.files?.[0])} />
        </label>
      </div>
      {report && (
        <div role="status" aria-label="Import report" className="space-y-2">
          {list('Imported', report.imported)}
          {list('Skipped', report.skipped)}
          {list('Type again', report.to_type_again)}
          {list('Not applied: read, then confirm', report.to_confirm)}
          {pending && report.to_confirm.length > 0 && (
            <div className="flex gap-2">
              <button type="button" className="btn btn-primary" onClick={() => void applyConfirmed()}>
                Apply these {report.to_confirm.length}
              </button>
              <button type="button" className="btn" onClick={() => setPending(null)}>
                Leave them out
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
