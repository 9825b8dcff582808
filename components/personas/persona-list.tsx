'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import type { PersonaSummaryJson } from '@/components/sessions/session-types';
import { ErrorBanner } from '@/components/ui/error-banner';
import { errorText } from '@/lib/errors/error-text';

const template = `# Persona name

## Identity and personality

## Values and principles

## Relevance criteria
What is important enough to tell the Internal Dialog.

## S_loud versus S_quiet
What to say to the Internal Dialog (S_loud) and what to keep to yourself (S_quiet).

## Mood and criteria
How to choose the mood and the criteria for the Internal Dialog.

## Speaking spontaneously
When a thought justifies speaking without the user's input (<trigger>true</trigger>).
`;

export function PersonaList() {
  const router = useRouter();
  const [personas, setPersonas] = useState<PersonaSummaryJson[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    apiFetch<{ personas: PersonaSummaryJson[] }>('/api/personas')
      .then((result) => setPersonas(result.personas))
      .catch((caught: Error) => setError(caught.message));
  }, []);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await apiFetch('/api/personas', { method: 'POST', body: { name: name.trim(), content: template.replace('Persona name', name.trim()) } });
      router.push(`/personas/${encodeURIComponent(name.trim())}`);
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <div className="space-y-4">
      <form onSubmit={create} aria-label="New persona" className="flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
        <label className="block text-sm">
          <span className="mb-1 block font-medium">New persona name</span>
          <input className="field" value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. curious-gardener" required />
        </label>
        <button type="submit" className="btn btn-primary">Create persona</button>
        <p className="w-full text-xs text-zinc-500">Letters, digits, “-” and “_”. The file is saved as personas/&lt;name&gt;.md.</p>
      </form>
      <ErrorBanner message={error} />
      {personas && personas.length === 0 && <p className="text-sm text-zinc-500">No persona files in personas/ yet.</p>}
      <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900" aria-label="Personas">
        {personas?.map((persona) => (
          <li key={persona.name} className="flex items-center justify-between px-4 py-3">
            <Link href={`/personas/${encodeURIComponent(persona.name)}`} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
              {persona.name}
            </Link>
            <span className="text-xs text-zinc-500">
              {(persona.size / 1024).toFixed(1)} KiB · edited {new Date(persona.updated_at).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
