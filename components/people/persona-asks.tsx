'use client';

// Guests asking for someone to talk to (issue 75 §4), at the top of People: each with their note and
// a button per persona that gives it in one click (the request is answered with it).
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { savePersonLimit } from './person-limits';

export interface AskingPerson {
  id: string;
  name: string;
  limits: Record<string, unknown> | null;
  persona_request: { asked_at: string; note: string | null } | null;
}

export function PersonaAsks({ people, onGiven, onError }: { people: AskingPerson[]; onGiven: (notice: string) => void; onError: (message: string) => void }) {
  const asking = people.filter((person) => person.persona_request);
  const [personas, setPersonas] = useState<string[]>([]);
  useEffect(() => {
    if (asking.length === 0) return;
    apiFetch<{ personas: { name: string }[] }>('/api/personas').then(
      (list) => setPersonas(list.personas.map((persona) => persona.name)),
      (caught: Error) => onError(caught.message),
    );
  }, [asking.length, onError]);
  if (asking.length === 0) return null;
  const give = (person: AskingPerson, persona: string) =>
    savePersonLimit(person.id, person.limits, 'personas', [persona]).then(
      () => onGiven(`${person.name} may talk to ${persona} now.`),
      (caught: Error) => onError(caught.message),
    );
  return (
    <section aria-labelledby="asks-heading" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
      <h2 id="asks-heading" className="font-semibold">
        Asking for someone to talk to
      </h2>
      <ul className="space-y-2">
        {asking.map((person) => (
          <li key={person.id} aria-label={`${person.name} asks for a persona`} className="space-y-1">
            <p>
              <strong>{person.name}</strong> asked {new Date(person.persona_request!.asked_at).toLocaleString()}
              {person.persona_request!.note ? <>: “{person.persona_request!.note}”</> : null}
            </p>
            <div className="flex flex-wrap gap-2">
              {personas.map((persona) => (
                <button key={persona} type="button" className="btn" onClick={() => void give(person, persona)}>
                  Give {persona}
                </button>
              ))}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
