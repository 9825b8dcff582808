// The WhatsApp channel, measured (issue 77), on the shared chat bench (chat-bench.ts) against the
// fake Cloud API: Meta's webhook sender delivers each message signed over HTTP to the channel's
// webhook (the signature checked, the delivery parsed, the message recorded before the 200), the
// reply goes out through the Graph API. Against the same message from the page: what the WhatsApp
// path adds to the first reply token (the budget: 50 ms) and to the whole reply.
import { startFakeWhatsApp } from '@/test/fakes/fake-whatsapp';
import { serveRoute } from '@/test/support/route-server';
import { added, interleaved, pathRow, PATH_HEADER, samplePath, startChatBench, whenFound, type PathSamples } from './chat-bench';
import { formatMs, median } from './stats';

export interface WhatsAppResult {
  page: PathSamples;
  whatsapp: PathSamples;
  /** From sending to Meta's 200 for the delivery (recorded), per WhatsApp sample. */
  acknowledgedMs: number[];
}

export async function benchWhatsApp(options: { samples: number }): Promise<WhatsAppResult> {
  const whatsapp = await startFakeWhatsApp();
  const person = { wa_id: '15550000077', name: 'bench' };
  let deliver: ((request: Request) => Promise<Response>) | null = null;
  // Meta's deliveries reach the channel as the route hands them over (app/api/channels/[id]/whatsapp).
  const bridge = await serveRoute({ POST: (request) => deliver!(request) }, /^\/whatsapp$/);
  whatsapp.setWebhook(`${bridge.url}/whatsapp`);
  const bench = await startChatBench({
    kind: 'whatsapp',
    config: { phone_number_id: whatsapp.phoneNumberId, access_token: whatsapp.accessToken, app_secret: whatsapp.appSecret, api_root: whatsapp.apiRoot },
    pair: async ({ orchestrator, channelId }) => {
      deliver = async (request) => {
        const answer = await orchestrator.channels!.webhook(channelId, { method: 'POST', query: new URL(request.url).searchParams, headers: request.headers, raw: new Uint8Array(await request.arrayBuffer()) })!;
        return new Response(answer.body, { status: answer.status, headers: { 'content-type': answer.contentType } });
      };
      await whatsapp.userWrites(person, 'let me in');
    },
  });
  const result: WhatsAppResult = { page: { firstTokenMs: [], wholeMs: [] }, whatsapp: { firstTokenMs: [], wholeMs: [] }, acknowledgedMs: [] };
  const replyText = (message: (typeof whatsapp.sent)[number]) => (message.type === 'text' ? (message.body.text as { body: string }).body : '');
  const chat = {
    send: async (text: string) => {
      const started = performance.now();
      await whatsapp.userWrites(person, text);
      result.acknowledgedMs.push(performance.now() - started);
    },
    arrived: (text: string) => whenFound(() => (whatsapp.sent.some((message) => replyText(message).includes(`You said: ${text}`)) ? performance.now() : undefined)),
  };
  await interleaved(['page', 'whatsapp'], options.samples, (via, index) => samplePath(bench, via, index, chat), (via, { first, whole }) => {
    result[via].firstTokenMs.push(first);
    result[via].wholeMs.push(whole);
  });
  result.acknowledgedMs.splice(0, 3); // the warm-up rounds
  await bench.close();
  await bridge.close();
  await whatsapp.close();
  return result;
}

export function whatsappTable(result: WhatsAppResult): string {
  const firstAdded = median(result.whatsapp.firstTokenMs) - median(result.page.firstTokenMs);
  return [
    ...PATH_HEADER,
    pathRow('the page (send-message)', result.page),
    pathRow('WhatsApp (a signed webhook delivery in, the Graph API out; fake Cloud API)', result.whatsapp),
    '',
    `The WhatsApp path adds ${added(result.page, result.whatsapp)}: **${formatMs(firstAdded)} ms** to the first token against the issue's 50 ms. Meta's delivery is answered 200 (recorded) ${formatMs(median(result.acknowledgedMs))} ms after it was sent (median).`,
  ].join('\n');
}
