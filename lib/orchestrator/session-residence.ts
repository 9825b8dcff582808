// What a session's mind needs from the machine it runs on, in a cluster (issue 31): its persona
// snapshot and its workspace, kept in the database so they follow the session. Its logs need
// nothing here: a mind starting replays the rows its log files lack (log-reconcile.ts).
import { readEnv } from '@/lib/config/env';
import type { EventBus } from '@/lib/mind/events';
import { readPersonaBytes } from '@/lib/personas/persona-files';
import { loadPersonaSnapshot } from '@/lib/store/session-files';
import { interruptRunningToolCalls } from '@/lib/store/tool-calls-repository';
import { readPersonaSnapshot, writePersonaSnapshot } from '@/lib/store/session-logs';
import { WorkspaceSync } from '@/lib/tools/workspace-sync';

const ran = new Set(['succeeded', 'failed']);

export class SessionResidence {
  private readonly workspaces: WorkspaceSync | null;

  constructor(owner: string | null) {
    this.workspaces = owner ? new WorkspaceSync({ owner, capBytes: readEnv().AGENTCSD_WORKSPACE_SYNC_MB * 1024 * 1024 }) : null;
  }

  /** The persona text the session started with: its snapshot here, or the one kept in the database (written here again). */
  async personaCore(session: { id: string; personaName: string }): Promise<string> {
    const here = readPersonaSnapshot(session.id);
    if (here !== null) return here;
    const kept = await loadPersonaSnapshot(session.id);
    if (kept) {
      writePersonaSnapshot({ sessionId: session.id, content: kept });
      return kept.toString('utf8');
    }
    return readPersonaBytes(session.personaName).bytes.toString('utf8');
  }

  /** Each tool call that ran may have changed the workspace: pushed a moment later. */
  watch(bus: EventBus): () => void {
    if (!this.workspaces) return () => undefined;
    const workspaces = this.workspaces;
    return bus.subscribe((event) => {
      if (event.type === 'tool-call' && ran.has(event.call.status)) workspaces.touched(event.call.session_id);
    });
  }

  /**
   * The session's mind is about to run here, having run elsewhere: a tool call still running there
   * is never run again (the model is told), and a newer workspace in the database comes here first.
   */
  async arrived(sessionId: string): Promise<void> {
    const interrupted = await interruptRunningToolCalls({ sessionId });
    if (interrupted > 0) console.warn(`[tools] ${interrupted} tool call(s) of session ${sessionId} were running in a process that died: marked interrupted`);
    const report = await this.workspaces?.pull(sessionId).catch((error: unknown) => {
      console.error(`[workspace] session ${sessionId} could not be brought here`, error instanceof Error ? error.message : error);
      return null;
    });
    if (report?.pulled) console.log(`[workspace] session ${sessionId}: ${report.pulled} file(s) brought here (generation ${report.generation})`);
  }

  /** The session's mind stopped here (moved, or this process stops): its workspace is pushed. */
  async left(sessionId: string): Promise<void> {
    await this.workspaces?.push(sessionId).catch((error: unknown) => {
      console.error(`[workspace] session ${sessionId} could not be synced`, error instanceof Error ? error.message : error);
    });
  }
}
