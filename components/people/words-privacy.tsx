'use client';

// "Their words stay their own" (issue 61 §6, off by default): the owner's pages then show that a
// person's conversations exist, what they cost and the cards the owner decides, not what was said.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';

export function WordsPrivacy({ onError }: { onError: (message: string) => void }) {
  const [on, setOn] = useState<boolean | null>(null);
  useEffect(() => {
    apiFetch<{ privacy: { words_stay_private: boolean } }>('/api/people/privacy').then((answer) => setOn(answer.privacy.words_stay_private), (caught: Error) => onError(caught.message));
  }, [onError]);
  if (on === null) return null;
  return (
    <label className="flex items-start gap-2 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800">
      <input
        type="checkbox"
        className="mt-1"
        checked={on}
        onChange={(event) => {
          const next = event.target.checked;
          apiFetch('/api/people/privacy', { method: 'PUT', body: { words_stay_private: next } }).then(() => setOn(next), (caught: Error) => onError(caught.message));
        }}
      />
      <span>
        <strong>Their words stay their own.</strong> Your pages show that each person&apos;s conversations exist, what they cost and the cards you must decide — not what was said in them, nor what was remembered from them.
      </span>
    </label>
  );
}
