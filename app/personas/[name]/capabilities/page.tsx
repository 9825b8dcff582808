import { GraphEditor } from '@/components/capabilities/graph-editor';

export const metadata = { title: 'Capabilities · AgentCSD' };

export default async function CapabilitiesPage({ params }: { params: Promise<{ name: string }> }) {
  const name = decodeURIComponent((await params).name);
  return (
    <div className="space-y-3">
      <div>
        <a href={`/personas/${encodeURIComponent(name)}`} className="text-sm text-indigo-700 hover:underline dark:text-indigo-300">
          ← {name}
        </a>
        <h1 className="text-2xl font-semibold">Capabilities of {name}</h1>
        <p className="text-sm text-zinc-500">
          What this persona&apos;s agent may use: agent.core decides, every other node is a capability it is connected to. An edge means &ldquo;available&rdquo;, never &ldquo;then&rdquo;. Sessions keep the graph they were created with.
        </p>
      </div>
      <GraphEditor persona={name} />
    </div>
  );
}
