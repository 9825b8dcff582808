// The same tool flow on both API backends, through the real adapters and the orchestrator, against
// the protocol-faithful fakes playing the scripted mind: a file written at once, a command that
// waits for a person and runs once approved, a Python call denied with a reason the model reads.
// (The Claude Code CLI backend runs the same flow in claude-cli-tools.test.ts.)
import { ownerActor } from '@/lib/people/rights';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/store/db';
import { listToolCalls } from '@/lib/store/tool-calls-repository';
import { apiBackendNames, useApiBackendsHarness } from '@/test/support/api-backends-harness';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

const dirs = useTempAppDirs({ personas: { tester: '# Tester\n' } });
const harness = useApiBackendsHarness(dirs);

describe.each(apiBackendNames)('tools on %s', (backend) => {
  it('write at once, approve a command, deny Python with a reason; the reply has every result in order', async () => {
    const { orchestrator, events } = harness;
    const layer = harness.layer(backend);
    const session = await orchestrator.createSession({ persona: 'tester', models: { c_model: layer, s_model: layer } });
    await orchestrator.sendUserMessage(session.id, { text: 'Please create a file and run a command [[tools]]' });
    const waiting = (name: string) => events.waitFor('tool-call', { where: (event) => event.sessionId === session.id && event.call.name === name && event.call.status === 'awaiting_approval', timeoutMs: 15_000 });
    const bash = await waiting('bash');
    const python = await waiting('python');
    await orchestrator.decideToolCall({ id: bash.call.id, decision: 'approve', args_hash: bash.call.args_hash, session_id: session.id }, await ownerActor());
    await orchestrator.decideToolCall({ id: python.call.id, decision: 'deny', reason: 'no Python today' }, await ownerActor());
    const end = await events.waitFor('turn-end', { where: (event) => event.sessionId === session.id, timeoutMs: 15_000 });
    expect(end.outcome, end.error).toBe('complete');
    expect(fs.readFileSync(path.join(dirs.dataDir, 'workspaces', session.id, 'notes.txt'), 'utf8')).toBe('remember the milk\n');
    const calls = await listToolCalls({ sessionId: session.id });
    expect(calls.map((call) => [call.name, call.status])).toEqual([
      ['write_file', 'succeeded'],
      ['bash', 'succeeded'],
      ['python', 'denied'],
    ]);
    const db = await getDb();
    const reply = await db.message.findFirst({ where: { sessionId: session.id, tag: 'ID_loud', turnId: end.turnId } });
    expect(reply?.content).toContain('Here is what the tools said: Created notes.txt (18 bytes) | remember the milk | ');
    expect(reply?.content).toContain('Denied by the user: no Python today');
  }, 30_000);
});
