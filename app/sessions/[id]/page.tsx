import { SessionView } from '@/components/session/session-view';
import { pageVisitor } from '@/lib/http/page-visitor';

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // A signed-in person's own session (issue 61): what only the owner changes is not offered.
  return <SessionView sessionId={id} asPerson={(await pageVisitor()).kind === 'person'} />;
}
