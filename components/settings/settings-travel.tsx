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
}

export function SettingsTravel() {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setReport(null);
    try {
      let body: unknown;
      try {
        body = JSON.parse(await file.text());
      } catch {
        throw new Error(`${file.name} is not JSON: choose a file exported from Settings › Backups.`);
      }
      setReport((await apiFetch<{ report: Report }>('/api/settings/import', { method: 'POST', body })).report);
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
        </div>
      )}
    </section>
  );
}
