'use client';

// Settings › Voice › Voice for replies (issue 76 §4): what *Read aloud* and the voice replies on
// Telegram are said in — the browser's own voices (nothing on the server), espeak-ng on this
// machine, or any OpenAI-compatible /v1/audio/speech (Kokoro-FastAPI, speaches, LocalAI, OpenAI).
// *Test* says a sentence as typed and plays it; *Save* keeps it.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { ErrorBanner } from '@/components/ui/error-banner';
import { useBusyAction } from '@/components/ui/use-busy-action';
import type { PublicVoiceSettings } from '@/lib/voice/voice-settings';

type Engine = 'browser' | 'espeak' | 'server';

const button = 'rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800';

const ENGINES: { value: Engine; label: string; says: string }[] = [
  { value: 'browser', label: 'This browser’s voices', says: 'Read aloud uses the voices of each person’s own browser; nothing is said on the server, and chats get text only.' },
  { value: 'espeak', label: 'espeak-ng on this machine', says: 'Free and offline, robotic but clear; Read aloud and Telegram voice replies are said here.' },
  { value: 'server', label: 'A speech server', says: 'Any OpenAI-compatible /v1/audio/speech: Kokoro-FastAPI or speaches on this machine, or a hosted one (then the words leave this machine).' },
];

export function ReplyVoiceSettings() {
  const [loaded, setLoaded] = useState<PublicVoiceSettings['speech'] | undefined>(undefined);
  const [engine, setEngine] = useState<Engine>('browser');
  const [espeakVoice, setEspeakVoice] = useState('en');
  const [endpoint, setEndpoint] = useState('http://127.0.0.1:8880/v1');
  const [model, setModel] = useState('kokoro');
  const [voice, setVoice] = useState('af_heart');
  const [apiKey, setApiKey] = useState('');
  const [price, setPrice] = useState('');
  const [sample, setSample] = useState<string | null>(null);
  const { busy, error, setError, status, setStatus, run } = useBusyAction();
  const fill = (settings: PublicVoiceSettings) => {
    const speech = settings.speech;
    setLoaded(speech);
    setEngine(speech ? speech.engine : 'browser');
    if (speech?.engine === 'espeak') setEspeakVoice(speech.voice ?? 'en');
    if (speech?.engine === 'server') {
      setEndpoint(speech.endpoint);
      setModel(speech.model);
      setVoice(speech.voice);
      setPrice(speech.usd_per_million_characters === null ? '' : String(speech.usd_per_million_characters));
    }
  };
  useEffect(() => {
    apiFetch<PublicVoiceSettings>('/api/voice-settings').then(fill, (caught: Error) => setError(caught.message));
  }, []);
  const typed = () =>
    engine === 'browser'
      ? null
      : engine === 'espeak'
        ? { engine, ...(espeakVoice.trim() && { voice: espeakVoice.trim() }) }
        : { engine, endpoint: endpoint.trim(), model: model.trim(), voice: voice.trim(), ...(apiKey && { api_key: apiKey }), ...(price.trim() && { usd_per_million_characters: Number(price) }) };
  const save = () =>
    run(async () => {
      fill(await apiFetch<PublicVoiceSettings>('/api/voice-settings', { method: 'PUT', body: { speech: typed() } }));
      setApiKey('');
      setStatus(engine === 'browser' ? 'Saved: each browser reads replies in its own voices.' : 'Saved: Read aloud and voice replies are said in this voice from now on.');
    });
  const test = () =>
    run(async () => {
      const speech = typed();
      if (!speech) {
        speechSynthesis.speak(new SpeechSynthesisUtterance('Hello. This is how I sound when I read a reply aloud.'));
        setStatus('Said by this browser.');
        return;
      }
      const answer = await apiFetch<{ ok: true; latency_ms: number; audio: string } | { ok: false; error: string }>('/api/voice-settings/test', { method: 'POST', body: { speech } });
      setSample(answer.ok ? answer.audio : null);
      setStatus(answer.ok ? `Said in ${answer.latency_ms} ms: listen below.` : `It does not work: ${answer.error}`);
    });
  const field = 'field w-full';
  return (
    <section aria-labelledby="reply-voice-heading" className="space-y-4 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      <h2 id="reply-voice-heading" className="text-lg font-semibold">
        Voice for replies
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        What <em>Read aloud</em> says a reply in, and the voice a Telegram chat hears after <code>/voice on</code>. What is said is counted on the
        conversation’s allowances and shown in Spending as Speech.
      </p>
      <ErrorBanner message={error} />
      <form
        aria-label="Voice for replies"
        className="space-y-3"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <fieldset className="space-y-1">
          <legend className="mb-1 text-sm font-medium">Said by</legend>
          {ENGINES.map((option) => (
            <label key={option.value} className="flex items-start gap-2 text-sm">
              <input type="radio" name="reply-engine" value={option.value} checked={engine === option.value} onChange={() => setEngine(option.value)} className="mt-1" />
              <span>
                <span className="font-medium">{option.label}</span> — <span className="text-zinc-600 dark:text-zinc-400">{option.says}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {engine === 'espeak' && (
          <label className="block max-w-xs text-sm">
            <span className="mb-1 block font-medium">espeak-ng voice (en, en-us, es, de…)</span>
            <input className={field} value={espeakVoice} onChange={(event) => setEspeakVoice(event.target.value)} maxLength={40} />
          </label>
        )}
        {engine === 'server' && (
          <div className="grid gap-3 sm:grid-cols-2">
            <label className="block text-sm">
              <span className="mb-1 block font-medium">Speech server address (…/v1)</span>
              <input className={field} value={endpoint} onChange={(event) => setEndpoint(event.target.value)} required maxLength={500} />
            </label>
            <label className="block text-sm">
              <span className="mb-1 block font-medium">Speech model</span>
              <input className={field} value={model} onChange={(event) => setModel(event.target.value)} required maxLength={200} />
            </label>
            <label className="block text-sm">
              <span className="mb-1 block font-medium">Voice name</span>
              <input className={field} value={voice} onChange={(event) => setVoice(event.target.value)} required maxLength={100} />
            </label>
            <label className="block text-sm">
              <span className="mb-1 block font-medium">Price, USD a million characters (empty: the known price, or free)</span>
              <input className={field} inputMode="decimal" value={price} onChange={(event) => setPrice(event.target.value)} pattern="\d+(\.\d+)?" maxLength={10} />
            </label>
            <label className="block text-sm sm:col-span-2">
              <span className="mb-1 block font-medium">Speech API key {loaded?.engine === 'server' && loaded.api_key_set ? '(kept — type a new one to change it)' : '(if the server needs one)'}</span>
              <input className={field} type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} maxLength={500} />
            </label>
          </div>
        )}
        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className={button} disabled={busy}>
            Save voice
          </button>
          <button type="button" className={button} disabled={busy} onClick={() => void test()}>
            Test voice
          </button>
          <span role="status" className="text-sm">
            {busy ? 'Working…' : status}
          </span>
        </div>
        {sample && <audio controls autoPlay src={sample} aria-label="The voice, saying a sample sentence" className="w-full max-w-md" />}
      </form>
    </section>
  );
}
