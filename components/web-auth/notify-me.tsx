'use client';

// Notifications on this device (issue 61 §5, issue 75 §6), said in plain words: checking, off,
// asking, on, failed — with a time-out, since a push service that never answers would leave the
// button silent — and read back from the browser's own subscription when the page loads.
import { useEffect, useState } from 'react';
import { apiFetch } from '@/components/api-client';
import { errorText } from '@/lib/errors/error-text';

type NotifyState = { kind: 'checking' | 'off' | 'asking' | 'on' | 'stopping' } | { kind: 'failed' | 'unsupported'; reason: string };

const ASK_TIMEOUT_MS = 20_000;
const button = 'rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:opacity-60 dark:border-zinc-700 dark:hover:bg-zinc-800';

function supported(): string | null {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'This browser cannot receive notifications (on an iPhone, add the app to the Home Screen first, then open it from there).';
  return null;
}

/** The browser's words for a refusal, as a person reads them. */
function plainReason(caught: unknown): string {
  if (Notification.permission === 'denied') return 'Notifications are blocked for this site: allow them in the browser’s site settings, then try again.';
  const text = errorText(caught);
  if (/permission denied|not allowed|NotAllowedError/i.test(text)) return 'The browser did not allow notifications here: allow them in its site settings, then try again.';
  return `No notifications on this device: ${text}`;
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return Promise.race([work, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error('the browser’s push service did not answer within 20 seconds: try again, or check that this device is online')), ASK_TIMEOUT_MS))]);
}

export function NotifyMe() {
  const [state, setState] = useState<NotifyState>({ kind: 'checking' });
  useEffect(() => {
    const unsupported = supported();
    if (unsupported) return setState({ kind: 'unsupported', reason: unsupported });
    navigator.serviceWorker.getRegistration().then(
      (registration) => registration?.pushManager.getSubscription() ?? null,
      () => null,
    ).then((subscription) => setState({ kind: subscription && Notification.permission === 'granted' ? 'on' : 'off' }));
  }, []);
  const turnOn = async () => {
    setState({ kind: 'asking' });
    try {
      if ((await Notification.requestPermission()) !== 'granted') throw new Error('permission denied');
      const subscription = await withTimeout(
        (async () => {
          const { public_key } = await apiFetch<{ public_key: string }>('/api/push/key');
          const registration = await navigator.serviceWorker.ready;
          return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: public_key });
        })(),
      );
      await apiFetch('/api/push/subscriptions', { method: 'POST', body: subscription.toJSON() });
      setState({ kind: 'on' });
    } catch (caught) {
      setState({ kind: 'failed', reason: plainReason(caught) });
    }
  };
  const turnOff = async () => {
    setState({ kind: 'stopping' });
    try {
      const subscription = await (await navigator.serviceWorker.ready).pushManager.getSubscription();
      if (subscription) {
        await apiFetch('/api/push/subscriptions', { method: 'DELETE', body: { endpoint: subscription.endpoint } }).catch(() => undefined);
        await subscription.unsubscribe();
      }
      setState({ kind: 'off' });
    } catch (caught) {
      setState({ kind: 'failed', reason: `Notifications could not be turned off: ${errorText(caught)}` });
    }
  };
  return (
    <div className="space-y-2 text-sm" data-testid="notify-me">
      <p role="status">
        {state.kind === 'checking' && 'Checking this device…'}
        {state.kind === 'off' && 'Off on this device.'}
        {state.kind === 'asking' && 'Asking the browser… (answer its question if it shows one)'}
        {state.kind === 'on' && 'On: this device is notified.'}
        {state.kind === 'stopping' && 'Turning off…'}
        {(state.kind === 'failed' || state.kind === 'unsupported') && state.reason}
      </p>
      {state.kind === 'on' ? (
        <button type="button" className={button} onClick={() => void turnOff()}>
          Stop notifying this device
        </button>
      ) : (
        state.kind !== 'unsupported' && (
          <button type="button" className={button} disabled={state.kind === 'checking' || state.kind === 'asking' || state.kind === 'stopping'} onClick={() => void turnOn()}>
            {state.kind === 'asking' ? 'Asking…' : state.kind === 'failed' ? 'Try again' : 'Notify me on this device'}
          </button>
        )
      )}
    </div>
  );
}
