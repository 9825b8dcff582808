// A recording heard is a `transcribe <model>` span (issue 76 §5): a CLIENT span with the model, the
// server and the size, sent to the OTLP endpoint the standard variables name; a refusal marks it failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, stopTracing } from '@/lib/telemetry/traces';
import { transcribe } from '@/lib/voice/transcribe';
import { startOtlpReceiver, type OtlpReceiver } from '@/test/fakes/otlp-receiver';
import { spokenAudio, startSpeechServer, type SpeechServer } from '@/test/fakes/speech-server';

let receiver: OtlpReceiver;
let speech: SpeechServer;
beforeAll(async () => {
  [receiver, speech] = await Promise.all([startOtlpReceiver(), startSpeechServer()]);
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  expect(await startTracing()).toBe(true);
});
afterAll(async () => {
  await stopTracing();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await Promise.all([receiver.close(), speech.close()]);
});

describe('the speech span', () => {
  it('names the model, the server and the size; a refusal is an error', async () => {
    const bytes = await spokenAudio('what is the weather like today', 'ogg');
    await transcribe({ endpoint: speech.url, model: 'whisper-1' }, { bytes, filename: 'voice.ogg', mimeType: 'audio/ogg' });
    speech.failNext(503, 'loading');
    await transcribe({ endpoint: speech.url, model: 'whisper-1' }, { bytes, filename: 'voice.ogg', mimeType: 'audio/ogg' }).catch(() => undefined);
    await expect.poll(() => receiver.spans.filter((span) => span.name === 'transcribe whisper-1').length, { timeout: 10_000 }).toBe(2);
    const [heard, refused] = receiver.spans.filter((span) => span.name === 'transcribe whisper-1');
    expect(heard!.kind).toBe(3); // CLIENT
    expect(heard!.attributes).toMatchObject({ 'gen_ai.request.model': 'whisper-1', 'server.address': new URL(speech.url).host, 'agentcsd.speech.bytes': bytes.byteLength });
    expect(heard!.status.code).not.toBe(2);
    expect(refused!.status.code).toBe(2); // ERROR
  });
});
