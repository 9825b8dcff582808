// "Test connection" for the settings form: one tiny real call, its latency and the exact error.
import type { LayerModelConfig } from '@/lib/config/model-config';
import { collectStream } from './collect-stream';
import { createBackend } from './create-backend';
import type { ModelBackend } from './model-backend';

export interface ConnectionReport {
  ok: boolean;
  latency_ms: number;
  reply?: string;
  error?: { kind: string; message: string; status?: number };
}

export async function testConnection(config: LayerModelConfig, options: { timeoutMs?: number; backend?: ModelBackend } = {}): Promise<ConnectionReport> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 60_000);
  const started = performance.now();
  try {
    const result = await collectStream(
      (options.backend ?? createBackend(config)).stream(
        {
          system: [{ text: 'You are a connectivity check. Answer with the single word OK.' }],
          messages: [{ role: 'user', content: 'Reply with OK.' }],
          model: config.model,
          maxTokens: 16,
        },
        controller.signal,
      ),
    );
    const latency_ms = Math.round(performance.now() - started);
    if (controller.signal.aborted) {
      return { ok: false, latency_ms, error: { kind: 'timeout', message: `No answer within ${options.timeoutMs ?? 60_000} ms` } };
    }
    if (result.error) {
      return { ok: false, latency_ms, error: { kind: result.error.kind, message: result.error.message, ...(result.error.status && { status: result.error.status }) } };
    }
    return { ok: true, latency_ms, reply: result.text.slice(0, 200) };
  } finally {
    clearTimeout(timer);
  }
}
