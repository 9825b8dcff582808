'use client';

import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { ElicitationField, ElicitationJson } from '@/lib/mind/elicitation-json';
import { errorText } from '@/lib/errors/error-text';

type Value = string | number | boolean | string[];

function initialValues(fields: readonly ElicitationField[]): Record<string, Value | ''> {
  return Object.fromEntries(fields.map((field) => [field.name, field.default ?? (field.type === 'boolean' ? false : field.type === 'array' ? [] : '')]));
}

const statusText: Record<ElicitationJson['status'], string> = {
  pending: 'waiting for you',
  accepted: 'answered',
  declined: 'declined',
  cancelled: 'cancelled',
  expired: 'expired (no answer in time)',
};

/** An MCP server's question mid-call: its form (or link), then Accept / Decline / Cancel. */
export function ElicitationCard(props: { elicitation: ElicitationJson; onError: (message: string) => void }) {
  const { elicitation } = props;
  const [values, setValues] = useState(() => initialValues(elicitation.fields));
  const [busy, setBusy] = useState(false);
  const pending = elicitation.status === 'pending';

  async function answer(action: 'accept' | 'decline' | 'cancel') {
    setBusy(true);
    try {
      const content: Record<string, Value> = {};
      for (const field of elicitation.fields) {
        const value = values[field.name];
        if (value === '' || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
        content[field.name] = field.type === 'number' || field.type === 'integer' ? Number(value) : value;
      }
      await apiFetch(`/api/elicitations/${elicitation.id}/answer`, { method: 'POST', body: { session_id: elicitation.session_id, action, ...(action === 'accept' && { content }) } });
    } catch (caught) {
      props.onError(errorText(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="flex justify-start" aria-label={`Question from ${elicitation.server}`} data-testid="elicitation-card">
      <div className="w-full max-w-[85%] rounded-lg border border-sky-300 bg-sky-50 px-3 py-2 text-sm dark:border-sky-800 dark:bg-sky-950">
        <p className="text-xs font-medium text-sky-800 dark:text-sky-300">
          {elicitation.server} asks · {statusText[elicitation.status]}
        </p>
        <p className="mt-1 whitespace-pre-wrap break-words">{elicitation.message}</p>
        {elicitation.sensitive && (
          <p role="alert" className="mt-1 rounded bg-amber-100 px-2 py-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
            This form asks for something secret (a password, key or token). MCP servers are meant to ask for secrets on their own page, not in a form: decline unless you trust {elicitation.server}.
          </p>
        )}
        {elicitation.mode === 'url' && elicitation.url && (
          <p className="mt-1 text-xs">
            It wants you to open{' '}
            <a className="break-all font-mono underline" href={elicitation.url} target="_blank" rel="noreferrer noopener">
              {elicitation.url}
            </a>{' '}
            ({new URL(elicitation.url).host}). Accept once you are done there.
          </p>
        )}
        {pending && elicitation.fields.length > 0 && (
          <div className="mt-2 space-y-2">
            {elicitation.fields.map((field) => (
              <label key={field.name} className="block text-xs">
                <span className="font-medium">
                  {field.title}
                  {field.required ? ' *' : ''}
                </span>
                {field.description && <span className="block text-zinc-500">{field.description}</span>}
                {field.type === 'boolean' ? (
                  <input type="checkbox" checked={values[field.name] === true} onChange={(event) => setValues({ ...values, [field.name]: event.target.checked })} />
                ) : field.type === 'array' ? (
                  <select
                    multiple
                    className="field py-0.5 text-xs"
                    value={(values[field.name] as string[] | undefined) ?? []}
                    onChange={(event) => setValues({ ...values, [field.name]: [...event.target.selectedOptions].map((option) => option.value) })}
                  >
                    {(field.choices ?? []).map((choice) => (
                      <option key={choice} value={choice}>
                        {choice}
                      </option>
                    ))}
                  </select>
                ) : field.choices ? (
                  <select className="field py-0.5 text-xs" value={String(values[field.name] ?? '')} onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}>
                    <option value="">—</option>
                    {field.choices.map((choice) => (
                      <option key={choice} value={choice}>
                        {choice}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    className="field py-0.5 text-xs"
                    type={field.sensitive ? 'password' : field.type === 'string' ? (field.format === 'email' ? 'email' : 'text') : 'number'}
                    autoComplete="off"
                    value={String(values[field.name] ?? '')}
                    onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
                  />
                )}
              </label>
            ))}
          </div>
        )}
        {pending && (
          <div className="mt-2 flex gap-2">
            <button type="button" className="btn btn-primary py-0.5 text-xs" disabled={busy} onClick={() => void answer('accept')}>
              Accept
            </button>
            <button type="button" className="btn py-0.5 text-xs" disabled={busy} onClick={() => void answer('decline')}>
              Decline
            </button>
            <button type="button" className="btn py-0.5 text-xs" disabled={busy} onClick={() => void answer('cancel')}>
              Cancel
            </button>
          </div>
        )}
      </div>
    </li>
  );
}
