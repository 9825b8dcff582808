import { ImportSession } from '@/components/sessions/import-session';
import { ModelsStatus } from '@/components/sessions/models-status';
import { NewSessionForm } from '@/components/sessions/new-session-form';
import { SessionList } from '@/components/sessions/session-list';
import { TryCrew } from '@/components/sessions/try-crew';

export default function HomePage() {
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Sessions</h1>
        <p className="text-sm text-zinc-500">Each session is a saved mind: its chat, its inner dialog and its subconscious.</p>
      </div>
      <ImportSession />
      <ModelsStatus />
      <TryCrew />
      <NewSessionForm />
      <SessionList />
    </div>
  );
}
