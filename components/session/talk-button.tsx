'use client';

// Push-to-talk (issue 76 §3), phone first: tap to record (MediaRecorder, the browser's own Opus in
// WebM or Ogg), tap again to stop; the recording goes to this app's server, which keeps it and hears
// it on the speech server the owner set (Settings › Voice) — never to the browser maker's service.
// The words come back into the composer to edit before they go, the recording attached beside them —
// or, with *Send when heard* ticked (kept in this browser), go at once.
import { useEffect, useRef, useState } from 'react';
import { errorText } from '@/lib/errors/error-text';
import type { AttachedFile } from './file-attach';

type Heard = { file: AttachedFile; text: string | null; problem?: string };

const MAX_SECONDS = 120;
const SEND_AT_ONCE_KEY = 'agentcsd.talk.send-at-once';

/** *Send when heard*: this browser's choice, read back on load. */
export function useSendAtOnce(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(false);
  useEffect(() => setOn(window.localStorage.getItem(SEND_AT_ONCE_KEY) === 'on'), []);
  return [
    on,
    (next) => {
      setOn(next);
      window.localStorage.setItem(SEND_AT_ONCE_KEY, next ? 'on' : 'off');
    },
  ];
}

export function TalkButton(props: { sessionId: string; disabled: boolean; onHeard: (heard: Heard) => void; onError: (message: string) => void }) {
  const [state, setState] = useState<'idle' | 'starting' | 'recording' | 'hearing'>('idle');
  const [seconds, setSeconds] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  // The recording ends in a closure made when it started: it answers to the composer as it is now.
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });
  useEffect(() => () => recorder.current?.stream.getTracks().forEach((track) => track.stop()), []);
  useEffect(() => {
    if (state !== 'recording') return;
    const timer = setInterval(() => setSeconds((count) => count + 1), 1000);
    return () => clearInterval(timer);
  }, [state]);
  useEffect(() => {
    if (state === 'recording' && seconds >= MAX_SECONDS) recorder.current?.stop();
  }, [state, seconds]);

  const send = async (blob: Blob) => {
    setState('hearing');
    try {
      const form = new FormData();
      form.append('file', blob, blob.type.includes('ogg') ? 'recording.ogg' : 'recording.webm');
      const response = await fetch(`/api/sessions/${props.sessionId}/voice`, { method: 'POST', body: form });
      const payload = (await response.json().catch(() => null)) as (Heard & { error?: { message: string } }) | null;
      if (!response.ok || !payload?.file) throw new Error(payload?.error?.message ?? `The recording was not taken (${response.status})`);
      latest.current.onHeard(payload);
    } catch (caught) {
      latest.current.onError(errorText(caught));
    } finally {
      setState('idle');
    }
  };

  const start = async () => {
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') return props.onError('This browser cannot record here (a page served over plain http from another machine cannot use the microphone: open it on localhost or over HTTPS).');
    setState('starting');
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const type = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm'].find((candidate) => MediaRecorder.isTypeSupported(candidate));
      const made = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
      const chunks: Blob[] = [];
      made.ondataavailable = (event) => event.data.size > 0 && chunks.push(event.data);
      made.onstop = () => {
        stream.getTracks().forEach((track) => track.stop());
        recorder.current = null;
        void send(new Blob(chunks, { type: made.mimeType || 'audio/webm' }));
      };
      recorder.current = made;
      setSeconds(0);
      made.start();
      setState('recording');
    } catch (caught) {
      setState('idle');
      props.onError(/NotAllowed|Permission/i.test(errorText(caught)) ? 'The microphone is not allowed for this site: allow it in the browser’s site settings.' : `No recording: ${errorText(caught)}`);
    }
  };

  const recording = state === 'recording';
  return (
    <button
      type="button"
      className={`btn ${recording ? 'border-red-600 text-red-700 dark:text-red-400' : ''}`}
      disabled={props.disabled || state === 'starting' || state === 'hearing'}
      aria-pressed={recording}
      title="Record your words: they come back here to edit before they go (heard on this app's speech server, Settings › Voice)"
      onClick={() => (recording ? recorder.current?.stop() : void start())}
    >
      {state === 'recording' ? `■ Stop (${seconds} s)` : state === 'hearing' ? 'Hearing…' : state === 'starting' ? 'Starting…' : '🎤 Talk'}
    </button>
  );
}
