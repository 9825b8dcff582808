// Two personas for the delegation tests (issue 34): `lead`, whose graph names `reviewer` as its
// specialist, and `reviewer`; one orchestrator for the file on a ScriptedBackend playing `script`.
import { afterAll, beforeAll } from 'vitest';
import type { BackendRequest, ContentBlock } from '@/lib/backends/model-backend';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { writePersonaGraph } from '@/lib/capabilities/graph-store';
import { Orchestrator } from '@/lib/orchestrator/orchestrator';
import { EventRecorder } from './event-recorder';
import { ScriptedBackend, type ScriptStep } from './scripted-backend';
import { useTempAppDirs } from './temp-app-dirs';

/** The tool results a request carries, in the backend contract's shape. */
export const toolResultsOf = (request: BackendRequest) =>
  request.messages.flatMap((message) => message.blocks ?? []).filter((block): block is Extract<ContentBlock, { type: 'tool-result' }> => block.type === 'tool-result');

/** The `<task>` brief of an Internal Dialog request (recalled memories of earlier tasks are left out); null for the Subconscious. */
export function briefOf(request: BackendRequest): string | null {
  if (!request.system[0]?.text.startsWith('You are the Internal Dialog')) return null;
  return /<task>([\s\S]*?)<\/task>/.exec(request.messages[0]?.content ?? '')?.[1] ?? '';
}

export const layer = (model: string) => ({ backend: 'openai_compatible' as const, model, max_tokens: 256, endpoint: 'http://127.0.0.1:9/v1' });

export function useLeadAndReviewer(script: (request: BackendRequest) => ScriptStep) {
  useTempAppDirs({ personas: { lead: '# Lead\n', reviewer: '# Reviewer\n' } });
  const backend = new ScriptedBackend([], script);
  const app = { backend, orchestrator: null as unknown as Orchestrator, events: null as unknown as EventRecorder };
  beforeAll(async () => {
    const graph = defaultGraph('lead');
    graph.nodes.push({ id: 'reviewer', type: 'agent.delegate', config: { persona: 'reviewer' }, position: { x: 0, y: 600 } });
    graph.edges.push({ id: 'e_reviewer', source: 'core', target: 'reviewer' });
    await writePersonaGraph('lead', graph);
    app.orchestrator = new Orchestrator({ createBackend: () => backend, taskWorkingDelayMs: 0 });
    app.events = new EventRecorder(app.orchestrator.bus);
    await app.orchestrator.start();
  });
  afterAll(async () => {
    app.events.close();
    await app.orchestrator.stop();
  });
  /** Each session of a test: the persona on the scripted backend. */
  const createSession = (persona: 'lead' | 'reviewer') => app.orchestrator.createSession({ persona, models: { c_model: layer('c'), s_model: layer('s') } });
  return { app, createSession };
}
