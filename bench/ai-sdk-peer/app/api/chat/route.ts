// The peer in the streaming benchmark: the same chat path built the usual way with the Vercel AI
// SDK — `streamText` in a Next route handler, streamed to the client as a UI message stream (what
// `useChat` reads). It proxies the fake OpenAI-compatible server named by FAKE_OPENAI_URL.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const { prompt } = (await request.json()) as { prompt: string };
  const provider = createOpenAICompatible({ name: 'fake', baseURL: `${process.env.FAKE_OPENAI_URL}/v1`, includeUsage: true });
  const result = streamText({ model: provider.chatModel('fake-large'), system: 'You are a benchmark peer.', prompt, maxRetries: 0 });
  return result.toUIMessageStreamResponse();
}
