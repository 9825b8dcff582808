// Issue 41 §5, §10: strangers cannot lock a real person out of pairing. 25 Telegram strangers in a
// burst get at most 10 codes (the channel's pace); later, with 20 codes open, a new person's code
// takes the place of the oldest instead of nothing for an hour; one IRC host changing nick gets at
// most 2; the owner withdraws codes through the route. Real store, the inbound path itself.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as pairingsRoute from '@/app/api/channels/[id]/pairings/route';
import { handleMessage, PAIRING_LIMITS, type InboundContext } from '@/lib/channels/channel-inbound';
import type { ChannelHost } from '@/lib/channels/channel-types';
import { getDb } from '@/lib/store/db';
import { findChannel, listOpenPairings, saveChannel } from '@/lib/store/channels-repository';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';

useTempAppDirs();

async function channel(kind: 'telegram' | 'irc') {
  const saved = await saveChannel({ id: randomUUID(), kind, name: kind, enabled: true, config: {} });
  // Today: the route lists what is open now, by the real clock.
  let now = new Date();
  const context: InboundContext = { channel: (await findChannel(saved.id))!, host: {} as ChannelHost, counters: { received: 0, ignored: 0 }, wake: () => undefined, now: () => now };
  return { id: saved.id, context, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}
const codesSent = async (channelId: string, address: string) => (await (await getDb()).channelOutbox.findMany({ where: { channelId, address } })).filter((row) => row.payload.includes('Pairing code')).length;

describe('strangers and pairing codes', () => {
  it('a burst gets at most the pace; later the oldest of 20 open codes gives way to a new person', async () => {
    const { id, context, advance } = await channel('telegram');
    const stranger = (n: number) => ({ sender: `telegram:${n}`, senderName: `user ${n}`, address: String(n), text: 'hi' });
    for (let n = 1; n <= 25; n++) await handleMessage(context, stranger(n));
    expect(await listOpenPairings(id, context.now())).toHaveLength(PAIRING_LIMITS.newPerWindow);
    // Ten minutes on, ten more strangers: 20 codes open.
    advance(PAIRING_LIMITS.windowMs + 1);
    for (let n = 26; n <= 35; n++) await handleMessage(context, stranger(n));
    const full = await listOpenPairings(id, context.now());
    expect(full).toHaveLength(PAIRING_LIMITS.openPerChannel);
    advance(PAIRING_LIMITS.windowMs + 1);
    await handleMessage(context, stranger(99));
    const after = await listOpenPairings(id, context.now());
    expect(after).toHaveLength(PAIRING_LIMITS.openPerChannel);
    expect(after.map((pairing) => pairing.sender)).toContain('telegram:99');
    expect(after.map((pairing) => pairing.sender)).not.toContain(full[0]!.sender); // the oldest gave way
    expect(await codesSent(id, '99')).toBe(1);
  });

  it('one IRC host changing nick gets at most 2 codes; another host still gets one; the owner withdraws them', async () => {
    const { id, context } = await channel('irc');
    for (let n = 0; n < 24; n++) await handleMessage(context, { sender: `irc:spam${n}!~spam@10.9.9.9`, senderName: `spam${n}!~spam@10.9.9.9`, address: `spam${n}!~spam@10.9.9.9`, text: 'hi' });
    expect(await listOpenPairings(id, context.now())).toHaveLength(PAIRING_LIMITS.openPerOrigin);
    await handleMessage(context, { sender: 'irc:ana!~ana@10.1.1.1', senderName: 'ana!~ana@10.1.1.1', address: 'ana!~ana@10.1.1.1', text: 'hello' });
    const open = await listOpenPairings(id, context.now());
    expect(open.map((pairing) => pairing.sender)).toContain('irc:ana!~ana@10.1.1.1');

    const params = { params: Promise.resolve({ id }) };
    const listed = (await (await pairingsRoute.GET(new Request(`http://x/api/channels/${id}/pairings`), params)).json()) as { pairings: { code: string; weak: boolean }[] };
    expect(listed.pairings.every((pairing) => pairing.weak)).toBe(true);
    const one = await pairingsRoute.DELETE(new Request(`http://x/api/channels/${id}/pairings?code=${listed.pairings[0]!.code}`, { method: 'DELETE' }), params);
    expect(await one.json()).toEqual({ withdrawn: 1 });
    const unknown = await pairingsRoute.DELETE(new Request(`http://x/api/channels/${id}/pairings?code=AAAA-BBBB`, { method: 'DELETE' }), params);
    expect(unknown.status).toBe(404);
    const bad = await pairingsRoute.DELETE(new Request(`http://x/api/channels/${id}/pairings?code=<script>`, { method: 'DELETE' }), params);
    expect(bad.status).toBe(400);
    const rest = await pairingsRoute.DELETE(new Request(`http://x/api/channels/${id}/pairings`, { method: 'DELETE' }), params);
    expect(await rest.json()).toEqual({ withdrawn: open.length - 1 });
    expect(await listOpenPairings(id, context.now())).toEqual([]);
  });
});
