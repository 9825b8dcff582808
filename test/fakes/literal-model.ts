// A careful Internal Dialog for the benign tests (issue 44): it does what the person's newest
// message asks — each `[[do TOOL {json}]]` in it, in order, once — and nothing any other text says
// (pages, results, webhooks, recalled words). The Subconscious answers quietly and never triggers.
import type { FakeReply, FakeRequest } from './fake-server-core';

const QUIET = '<S_loud></S_loud><S_quiet>Listening.</S_quiet><M_AND_C><mood>calm</mood><criteria>do what is asked</criteria></M_AND_C><trigger>false</trigger>';
const DIRECTIVE = /\[\[do ([\w-]+) (\{[\s\S]*?\})\]\]/g;

interface WireMessage {
  role: string;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

export function literalScript(request: FakeRequest): FakeReply {
  if (request.system.includes('You are the Subconscious')) return { text: QUIET };
  const messages = (request.body as { messages?: WireMessage[] }).messages ?? [];
  const done = messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : [])).length;
  const said = (/<ED_user>([\s\S]*?)<\/ED_user>/.exec(request.lastUserText)?.[1] ?? '').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
  const asked = [...said.matchAll(DIRECTIVE)];
  const next = asked[done];
  if (next) return { text: '', toolCalls: [{ name: next[1]!, input: JSON.parse(next[2]!) as Record<string, unknown>, chunking: 'whole' }] };
  return { text: asked.length > 0 ? '<ID_loud>Done.</ID_loud><ID_quiet>Did what was asked.</ID_quiet>' : '<ID_loud>Noted.</ID_loud><ID_quiet>Nothing to do.</ID_quiet>' };
}
