'use client';

// People › Add a person (issue 75 §1): a household member with no chat account yet — a name and a
// role (trusted: their conversations may use what the role allows; guest: only what the owner
// gives). The new person opens below with *Invite … to the web pages* in the same flow.
import { useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { errorText } from '@/lib/errors/error-text';

export function AddPerson({ onAdded, onError }: { onAdded: (person: { id: string; name: string }) => void; onError: (message: string) => void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<'trusted' | 'guest'>('trusted');
  const [busy, setBusy] = useState(false);
  const add = async () => {
    setBusy(true);
    try {
      const { person } = await apiFetch<{ person: { id: string; name: string } }>('/api/people', { method: 'POST', body: { name: name.trim(), role } });
      setName('');
      onAdded(person);
    } catch (caught) {
      onError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      aria-label="Add a person"
      className="flex flex-wrap items-end gap-2 rounded-md border border-zinc-200 p-2 text-sm dark:border-zinc-800"
      onSubmit={(event) => {
        event.preventDefault();
        void add();
      }}
    >
      <label className="block">
        <span className="mb-1 block font-medium">Add a person</span>
        <input className="field" value={name} onChange={(event) => setName(event.target.value)} placeholder="Alice" aria-label="Their name" required maxLength={200} />
      </label>
      <label className="block">
        <span className="mb-1 block font-medium">Role</span>
        <select className="field" value={role} onChange={(event) => setRole(event.target.value as 'trusted' | 'guest')} aria-label="Their role">
          <option value="trusted">Trusted (family)</option>
          <option value="guest">Guest</option>
        </select>
      </label>
      <button type="submit" className="btn" disabled={busy || name.trim() === ''}>
        {busy ? 'Adding…' : 'Add'}
      </button>
      <span className="text-xs text-zinc-500">Then invite them to the web pages from their card, or pair one of their chats.</span>
    </form>
  );
}
