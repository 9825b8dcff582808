import { PersonaList } from '@/components/personas/persona-list';

export const metadata = { title: 'Personas · AgentCSD' };

export default function PersonasPage() {
  return (
    <div className="max-w-3xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Personas</h1>
        <p className="text-sm text-zinc-500">
          A Persona Core is the Subconscious&apos;s system prompt: who the agent is, what matters to it, and when it speaks on its own.
          Only this editor writes these files.
        </p>
      </div>
      <PersonaList />
    </div>
  );
}
