// What a feature may ask of the mind it runs in: which session, its current record, and one way
// to call a model (the orchestrator's implementation records the call and reports usage). The
// whole MindContext — toolbox, memory, tool server — is the orchestrator's, built on this.
import type { BackendRequest } from '@/lib/backends/model-backend';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { CallLayer } from '@/lib/store/mind-repository';
import type { SessionRecord } from '@/lib/store/sessions-repository';
import type { ModelCallResult } from './model-call';

export interface MindModelAccess {
  readonly sessionId: string;
  session(): SessionRecord;
  /** Calls the layer's backend (retries included), records the call in llm_calls, reports usage. */
  callModel(input: { layer: CallLayer; config: LayerModelConfig; request: BackendRequest; signal: AbortSignal; onText?: (text: string) => void; traceId?: string }): Promise<ModelCallResult>;
}
