import { OwnerSees } from '@/components/people/owner-sees';
import { IdleCostLine } from '@/components/sessions/idle-cost-line';
import { ImportSession } from '@/components/sessions/import-session';
import { ModelsStatus } from '@/components/sessions/models-status';
import { NewSessionForm } from '@/components/sessions/new-session-form';
import { SessionList } from '@/components/sessions/session-list';
import { TryCrew } from '@/components/sessions/try-crew';
import { PersonNewSession } from '@/components/sessions/person-new-session';
import { pageVisitor } from '@/lib/http/page-visitor';

export default async function HomePage() {
  const visitor = await pageVisitor();
  if (visitor.kind === 'person') {
    // A signed-in person's home (issue 61 §3): their sessions, and a new one with the personas they may use.
    return (
      <div className="space-y-6">
        <div>
          <h1 className="text-2xl font-semibold">Your sessions</h1>
          <p className="text-sm text-zinc-500">Hello {visitor.person.name}. Each is your conversation with the assistant — its chat, its inner dialog and its subconscious.</p>
          <OwnerSees />
        </div>
        <PersonNewSession />
        <SessionList />
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Sessions</h1>
        <p className="text-sm text-zinc-500">Each session is a saved mind: its chat, its inner dialog and its subconscious.</p>
      </div>
      <ImportSession />
      <ModelsStatus />
      <IdleCostLine />
      <TryCrew />
      <NewSessionForm />
      <SessionList />
    </div>
  );
}
