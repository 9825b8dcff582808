'use client';

// Whose memory a forget_memory card would remove (issue 58 §5): the card names it and shows its
// words, so the person deciding knows whose memory goes — never a bare "memory #1".
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';

interface MemoryDetailJson {
  memory: { id: number; content: string; shared: boolean };
  people: { id: string; name: string; role: string }[];
}

export function MemoryCardNote({ id }: { id: number }) {
  const [detail, setDetail] = useState<MemoryDetailJson | null | 'gone'>(null);
  useEffect(() => {
    apiFetch<MemoryDetailJson>(`/api/memories/${id}`).then(setDetail, () => setDetail('gone'));
  }, [id]);
  if (detail === null) return null;
  if (detail === 'gone') return <p className="text-xs text-zinc-500">Memory #{id} no longer exists.</p>;
  const whose = detail.memory.shared || detail.people.length === 0 ? 'shared with everyone' : `${detail.people.map((person) => (person.role === 'owner' ? 'your' : `${person.name}'s`)).join(' and ')} memory`;
  return (
    <p className="text-xs text-zinc-700 dark:text-zinc-300" data-testid="memory-card-note">
      Memory #{id}, {whose}: “{detail.memory.content}”
    </p>
  );
}
