'use client';

// Settings › Voice (issue 76 §1): the speech server voice notes and push-to-talk are heard on — any
// OpenAI-compatible /v1/audio/transcriptions — with *Test* (a second of silence, sent as typed).
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { useBusyAction } from '@/components/ui/use-busy-action';

interface VoiceJson {
  transcription: { endpoint: string; model: string; language: string | null; api_key_set: boolean } | null;
}

const button = 'rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800';

export function VoiceSettings() {
  const [loaded, setLoaded] = useState<VoiceJson | null>(null);
  const [endpoint, setEndpoint] = useState('http://127.0.0.1:8000/v1');
  const [model, setModel] = useState('Systran/faster-whisper-small');
  const [language, setLanguage] = useState('');
  const [apiKey, setApiKey] = useState('');
  const { busy, error, setError, status, setStatus, run } = useBusyAction();
  const fill = (json: VoiceJson) => {
    setLoaded(json);
    if (json.transcription) {
      setEndpoint(json.transcription.endpoint);
      setModel(json.transcription.model);
      setLanguage(json.transcription.language ?? '');
    }
  };
  const [found, setFound] = useState<{ name: string; endpoint: string; model: string }[]>([]);
  useEffect(() => {
    apiFetch<VoiceJson>('/api/voice-settings').then((json) => {
      fill(json);
      // None set yet: look for one on this machine, as the home page looks for Ollama.
      if (!json.transcription) apiFetch<{ found: typeof found }>('/api/voice-settings/detect').then((answer) => setFound(answer.found), () => undefined);
    }, (caught: Error) => setError(caught.message));
  }, []);
  const typed = () => ({ endpoint: endpoint.trim(), model: model.trim(), ...(language.trim() && { language: language.trim() }), ...(apiKey && { api_key: apiKey }) });
  const save = () =>
    run(async () => {
      fill(await apiFetch<VoiceJson>('/api/voice-settings', { method: 'PUT', body: { transcription: typed() } }));
      setApiKey('');
      setStatus('Saved: voice notes and push-to-talk are heard on this server from now on.');
    });
  const test = () =>
    run(async () => {
      const answer = await apiFetch<{ ok: true; latency_ms: number } | { ok: false; error: string }>('/api/voice-settings/test', { method: 'POST', body: { transcription: typed() } });
      setStatus(answer.ok ? `The server answered in ${answer.latency_ms} ms.` : `It does not work: ${answer.error}`);
    });
  const turnOff = () =>
    run(async () => {
      fill(await apiFetch<VoiceJson>('/api/voice-settings', { method: 'PUT', body: { transcription: null } }));
      setStatus('Off: voice notes are kept, and their senders told they are not heard.');
    });
  return (
    <section aria-labelledby="voice-heading" className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="voice-heading" className="text-lg font-semibold">
        Speech to text
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Voice notes from every chat and push-to-talk on the session page are sent to this server and heard there; the recording is kept with the
        conversation. Any OpenAI-compatible server works: speaches (faster-whisper) or whisper.cpp’s server on this machine, or a hosted one such as
        Groq or OpenAI (then the audio leaves this machine). {loaded && !loaded.transcription && <strong>None is set: voice notes are kept but not heard.</strong>}
      </p>
      <ErrorBanner message={error} />
      {found.map((server) => (
        <p key={server.endpoint} className="flex flex-wrap items-center gap-2 rounded-md border border-green-300 bg-green-50 p-2 text-sm dark:border-green-800 dark:bg-green-950" data-testid="speech-found">
          Found {server.name} at <code>{server.endpoint}</code> ({server.model}).
          <button
            type="button"
            className={button}
            onClick={() => {
              setEndpoint(server.endpoint);
              setModel(server.model);
              setStatus('Filled in: Test it, then Save.');
            }}
          >
            Use it
          </button>
        </p>
      ))}
      <form
        aria-label="Speech server"
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Server address (…/v1)</span>
          <input className="field w-full" value={endpoint} onChange={(event) => setEndpoint(event.target.value)} required maxLength={500} />
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Model</span>
          <input className="field w-full" value={model} onChange={(event) => setModel(event.target.value)} required maxLength={200} />
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">Language (two letters; empty: the server detects it)</span>
          <input className="field w-full" value={language} onChange={(event) => setLanguage(event.target.value)} maxLength={2} placeholder="en" />
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium">API key {loaded?.transcription?.api_key_set ? '(kept — type a new one to change it)' : '(if the server needs one)'}</span>
          <input className="field w-full" type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} maxLength={500} />
        </label>
        <div className="flex flex-wrap items-center gap-2 sm:col-span-2">
          <button type="submit" className={button} disabled={busy}>
            Save
          </button>
          <button type="button" className={button} disabled={busy} onClick={() => void test()}>
            Test
          </button>
          {loaded?.transcription && (
            <button type="button" className={button} disabled={busy} onClick={() => void turnOff()}>
              Turn off
            </button>
          )}
          <span role="status" className="text-sm">
            {busy ? 'Working…' : status}
          </span>
        </div>
      </form>
    </section>
  );
}
