import { MemoryBrowser } from '@/components/memory/memory-browser';
import { pageVisitor } from '@/lib/http/page-visitor';

export const metadata = { title: 'Memory · AgentCSD' };

export default async function MemoryPage() {
  // A signed-in person reads the shared memories and those of their conversations (issue 61).
  const person = (await pageVisitor()).kind === 'person';
  return (
    <div className="max-w-4xl space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Memory</h1>
        <p className="text-sm text-zinc-500">
          What each persona remembers beyond a session: facts, episodes, task summaries and journal notes, and everything said in its sessions. Search uses the same
          recall the agent uses; forgetting removes a memory for good.
        </p>
      </div>
      <MemoryBrowser readOnly={person} />
    </div>
  );
}
