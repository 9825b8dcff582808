// Web Push (issue 61 §5, RFC 8030/8291/8292): a card a person may decide and the agent's unprompted
// words reach their phone. The VAPID key pair is made at first use and kept in the settings table
// with its private half sealed (lib/store/secret-box.ts). A notification is encrypted for the
// device's own keys (aes128gcm) by `web-push` and posted to its push service: only a public HTTPS
// service (the browsers' own), or one the owner lists in AGENTCSD_PUSH_SERVICES (a self-hosted
// one) — never, through a crafted subscription, an address inside the network. A service that
// answers 404 or 410 has forgotten the device: it is dropped.
import webpush from 'web-push';
import { z } from 'zod';
import { readEnv } from '@/lib/config/env';
import { isLocalHostName, isPrivateAddress } from '@/lib/security/network-address';
import { fetchPinned, resolveHost, systemResolve, type Resolve } from '@/lib/security/pinned-fetch';
import { open, seal } from '@/lib/store/secret-box';
import { readJsonSetting, WEB_PUSH_VAPID_SETTING } from '@/lib/store/settings-repository';
import { getDb } from '@/lib/store/db';
import { dropPushSubscription, pushSubscriptionsOf, type PushSubscriptionRecord } from '@/lib/store/web-auth-repository';
import { errorText } from '@/lib/errors/error-text';

const VAPID_SETTING = WEB_PUSH_VAPID_SETTING;
const vapidSchema = z.object({ public_key: z.string(), private_key_sealed: z.string() });

/** What a notification says: a title, a line, and the page it opens (nothing the person may not see). */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  /** Notifications with one tag replace each other (a session's cards, say). */
  tag: string;
}

/** The app's VAPID key pair: read, or made once (two processes racing keep the first one written). */
export async function vapidKeys(): Promise<{ publicKey: string; privateKey: string }> {
  const stored = await readJsonSetting(VAPID_SETTING, vapidSchema.nullable(), 'Web Push keys', null);
  if (stored) {
    const privateKey = open(stored.private_key_sealed, VAPID_SETTING);
    if (privateKey) return { publicKey: stored.public_key, privateKey };
  }
  const made = webpush.generateVAPIDKeys();
  const value = JSON.stringify({ public_key: made.publicKey, private_key_sealed: seal(made.privateKey, VAPID_SETTING) });
  const db = await getDb();
  // A key sealed under another secret key (a restored database) is replaced; otherwise the first writer wins.
  if (stored) await db.setting.update({ where: { key: VAPID_SETTING }, data: { value } });
  else await db.setting.upsert({ where: { key: VAPID_SETTING }, create: { key: VAPID_SETTING, value }, update: {} });
  const kept = await readJsonSetting(VAPID_SETTING, vapidSchema, 'Web Push keys', { public_key: made.publicKey, private_key_sealed: '' });
  return { publicKey: kept.public_key, privateKey: open(kept.private_key_sealed, VAPID_SETTING) ?? made.privateKey };
}

/** The push services notifications may go to besides public HTTPS ones (origins, comma-separated). */
function listedServices(): Set<string> {
  return new Set(
    (readEnv().AGENTCSD_PUSH_SERVICES ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean)
      .map((origin) => new URL(origin).origin),
  );
}

/** Why a subscription's endpoint is refused (undefined: it may be used), judged on its resolved addresses. */
export async function endpointRefusal(endpoint: string, resolve: Resolve = systemResolve): Promise<{ reason?: string; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { reason: 'not a URL', addresses: [] };
  }
  if (url.username || url.password) return { reason: 'an endpoint carries no credentials', addresses: [] };
  const listed = listedServices().has(url.origin);
  if (!listed && url.protocol !== 'https:') return { reason: 'a push service is reached over HTTPS', addresses: [] };
  if (!listed && isLocalHostName(url.hostname)) return { reason: 'a push service is not on this machine or network', addresses: [] };
  let addresses: string[];
  try {
    addresses = await resolveHost(url.hostname, resolve);
  } catch (error) {
    return { reason: `its host does not resolve (${errorText(error)})`, addresses: [] };
  }
  if (!listed && addresses.some(isPrivateAddress)) return { reason: 'a push service is not on this machine or network', addresses };
  return { addresses };
}

export interface PushOutcome {
  sent: number;
  dropped: number;
  failed: string[];
}

/** Sends one notification to every device of the person; a device its service forgot is dropped. */
export async function pushToPerson(personId: string, payload: PushPayload, options: { resolve?: Resolve } = {}): Promise<PushOutcome> {
  const devices = await pushSubscriptionsOf(personId);
  const outcome: PushOutcome = { sent: 0, dropped: 0, failed: [] };
  if (devices.length === 0) return outcome;
  const keys = await vapidKeys();
  const subject = readEnv().AGENTCSD_PUBLIC_URL ?? 'mailto:owner@agentcsd.invalid';
  for (const device of devices) {
    const status = await pushOne(device, payload, keys, subject, options.resolve).catch((error: Error) => error.message);
    if (status === 404 || status === 410) {
      await dropPushSubscription(device.endpoint);
      outcome.dropped += 1;
    } else if (typeof status === 'number' && status >= 200 && status < 300) outcome.sent += 1;
    else outcome.failed.push(`${new URL(device.endpoint).host}: ${status}`);
  }
  return outcome;
}

async function pushOne(device: PushSubscriptionRecord, payload: PushPayload, keys: { publicKey: string; privateKey: string }, subject: string, resolve?: Resolve): Promise<number | string> {
  const judged = await endpointRefusal(device.endpoint, resolve);
  if (judged.reason) return `refused: ${judged.reason}`;
  const details = webpush.generateRequestDetails({ endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } }, JSON.stringify(payload), {
    vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
    TTL: 3600,
    contentEncoding: 'aes128gcm',
    urgency: 'normal',
  });
  const response = await fetchPinned(new URL(details.endpoint), { method: details.method, headers: details.headers as Record<string, string>, body: details.body ? new Uint8Array(details.body) : null, signal: AbortSignal.timeout(10_000) }, judged.addresses);
  await response.body?.cancel();
  return response.status;
}
