'use client';

// A reply read aloud (issue 76 §4): in the server's voice when Settings › Voice names one (espeak-ng
// on this machine, or a speech server) — an <audio> player under the reply — else with this
// browser's own voices (speechSynthesis), where the words stay in the browser.
import { useEffect, useState } from 'react';
import { spokenText } from '@/lib/voice/spoken-text';

export function ReadAloud({ sessionId, messageId, text }: { sessionId: string; messageId: number; text: string }) {
  const [browserVoices, setBrowserVoices] = useState(false);
  const [speaking, setSpeaking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [audio, setAudio] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => setBrowserVoices(typeof window !== 'undefined' && 'speechSynthesis' in window), []);
  useEffect(() => () => void (audio && URL.revokeObjectURL(audio)), [audio]);
  if (!text.trim()) return null;

  const inBrowser = () => {
    if (!browserVoices) {
      setProblem('this browser has no voices, and none is set on the server (Settings › Voice)');
      return;
    }
    window.speechSynthesis.cancel(); // one reply at a time
    const utterance = new SpeechSynthesisUtterance(spokenText(text));
    utterance.lang = document.documentElement.lang || 'en';
    utterance.onend = () => setSpeaking(false);
    utterance.onerror = () => setSpeaking(false);
    setSpeaking(true);
    window.speechSynthesis.speak(utterance);
  };
  const toggle = async () => {
    setProblem(null);
    if (speaking) {
      window.speechSynthesis.cancel();
      setSpeaking(false);
      return;
    }
    if (audio) {
      setAudio(null);
      return;
    }
    setBusy(true);
    try {
      const response = await fetch(`/api/sessions/${sessionId}/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message_id: messageId }), cache: 'no-store' });
      if (response.ok) setAudio(URL.createObjectURL(await response.blob()));
      else if (response.status === 409) inBrowser(); // no voice on the server: this browser's own
      else setProblem(((await response.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message ?? `not read (${response.status})`);
    } catch {
      setProblem('the server did not answer');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="underline" onClick={() => void toggle()} disabled={busy} aria-pressed={speaking || audio !== null} title="Read this reply aloud: in the server's voice when Settings › Voice sets one, else this browser's">
        {busy ? 'Reading…' : speaking ? 'Stop reading' : audio ? 'Hide the player' : 'Read aloud'}
      </button>
      {problem && <span role="alert">Not read aloud: {problem}</span>}
      {audio && (
        <span className="basis-full">
          <audio controls autoPlay src={audio} aria-label="The reply, read aloud" className="mt-1 h-8 w-full max-w-xs" />
        </span>
      )}
    </>
  );
}
