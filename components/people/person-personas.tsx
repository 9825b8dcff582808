'use client';

// The personas the owner gives a person (issue 75 §4): a guest starts conversations only with
// these (and those their chats are bound to); a trusted person may use any, so nothing to give.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { savePersonLimit } from './person-limits';

interface Props {
  personId: string;
  name: string;
  role: string;
  limits: Record<string, unknown> | null;
  onSaved: () => void;
  onError: (message: string) => void;
}

export function PersonPersonas({ personId, name, role, limits, onSaved, onError }: Props) {
  const [all, setAll] = useState<string[] | null>(null);
  useEffect(() => {
    apiFetch<{ personas: { name: string }[] }>('/api/personas').then(
      (list) => setAll(list.personas.map((persona) => persona.name)),
      (caught: Error) => onError(caught.message),
    );
  }, [onError]);
  if (role === 'owner') return null;
  if (role !== 'guest') return <p className="mt-2 text-zinc-500">{name} may start conversations with any persona (trusted).</p>;
  const given = Array.isArray(limits?.personas) ? (limits.personas as string[]) : [];
  const give = async (persona: string, yes: boolean) => {
    const personas = yes ? [...new Set([...given, persona])] : given.filter((each) => each !== persona);
    try {
      await savePersonLimit(personId, limits, 'personas', personas.length ? personas : null);
      onSaved();
    } catch (caught) {
      onError((caught as Error).message);
    }
  };
  return (
    <fieldset className="mt-2" aria-label={`Personas ${name} may talk to`}>
      <legend className="font-medium">Personas {name} may start conversations with</legend>
      {given.length === 0 && <p className="text-zinc-500">None yet: a guest talks only to the personas you give them here (or their chats are bound to).</p>}
      <div className="mt-1 flex flex-wrap gap-x-3 gap-y-1">
        {(all ?? []).map((persona) => (
          <label key={persona} className="flex items-center gap-1">
            <input type="checkbox" checked={given.includes(persona)} onChange={(event) => void give(persona, event.target.checked)} />
            {persona}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
