// A scripted "mind" for the fake model servers: it answers each layer in its protocol, from what
// the prompt says, so end-to-end runs and benchmarks see a believable, deterministic agent.
//   Internal Dialog  → <ID_loud>You said: …</ID_loud><ID_quiet>…</ID_quiet> (or a spontaneous line)
//   Subconscious     → <S_loud> <S_quiet> <M_AND_C> <trigger>; a user message containing
//                      [[speak]] makes it trigger once (until the agent has spoken on its own).
//   Tools            → a user message containing [[tools]] (with tools offered) gets one step of
//                      calls — write_file, bash, python — and, once their results come back, a
//                      reply quoting each result's first line. [[bash WORD]]: one bash call, `echo WORD`. [[mcp]] does the same with two
//                      calls to the everything__ tools of server-everything ([[elicit]]: the one
//                      that asks the user a question); [[remember]] keeps
//                      what the user said with the remember tool; [[remind YYYY-MM-DD HH:MM]] makes a
//                      one-shot reminder then and a weekday cron job with the schedule tool;
//                      [[look]] with an attached image says how many images came with the words,
//                      then looks again (view_image) and shows it back (show_file).
//                      [[browse URL]] opens the page in the agent's browser (browser_open) and
//                      quotes its first heading.
import { unescapeTagContent } from '@/lib/mind/tags/escape';
import type { FakeReply, FakeRequest } from './fake-server-core';

export const spontaneousMarker = '(on my own)';

export function tagContent(text: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text);
  return match ? unescapeTagContent(match[1]!) : null;
}

interface WireMessage {
  role: string;
  content: unknown;
}

/** A result as a model reads it: the `<untrusted_data>` wrapper of outside content (issue 32) taken off. */
function unwrapped(result: string): string {
  const match = /^<untrusted_data source="[^"]*">([\s\S]*)<\/untrusted_data>$/.exec(result);
  return match ? unescapeTagContent(match[1]!) : result;
}

/** The results the last step's calls got, in either provider's shape; null when none came back. */
export function toolResults(body: unknown): string[] | null {
  const results = wireResults(body);
  return results && results.map(unwrapped);
}

/** The user message an OpenAI-compatible request adds after tool messages with what a tool showed (view_image). */
const showsToolImages = (message: WireMessage | undefined) =>
  message?.role === 'user' && Array.isArray(message.content) && String((message.content as { text?: string }[])[0]?.text ?? '').startsWith('[What the tool calls above showed');

/** Image parts or blocks in a message, in either provider's shape. */
export function imagesIn(message: WireMessage | undefined): number {
  if (!message || !Array.isArray(message.content)) return 0;
  return (message.content as { type?: string }[]).filter((part) => part.type === 'image_url' || part.type === 'image').length;
}

function wireResults(body: unknown): string[] | null {
  const all = (body as { messages?: WireMessage[] }).messages ?? [];
  const messages = showsToolImages(all.at(-1)) ? all.slice(0, -1) : all;
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const trailing: string[] = [];
    for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--) trailing.unshift(String(messages[index]!.content));
    return trailing;
  }
  if (last?.role === 'user' && Array.isArray(last.content)) {
    const results = (last.content as { type?: string; content?: unknown }[]).filter((block) => block.type === 'tool_result');
    if (results.length > 0) return results.map((block) => (typeof block.content === 'string' ? block.content : JSON.stringify(block.content)));
  }
  return null;
}

const offersTools = (body: unknown) => Array.isArray((body as { tools?: unknown[] }).tools) && (body as { tools: unknown[] }).tools.length > 0;

export const toolStepCalls = [
  { name: 'write_file', input: { path: 'notes.txt', content: 'remember the milk\n' } },
  { name: 'bash', input: { command: 'cat notes.txt && wc -c < notes.txt', explanation: 'Show the new file and count its bytes' } },
  { name: 'python', input: { code: 'print(6 * 7)', explanation: 'Work out the answer' } },
];

/** `[[mcp]]`: one read-only call and one the server does not mark (a card) to server-everything. */
export const mcpStepCalls = [
  { name: 'everything__echo', input: { message: 'from the mind' } },
  { name: 'everything__toggle-simulated-logging', input: {} },
];

/** Codex's shell tools across versions, and the arguments each takes. */
const clientShells: [string, (command: string) => Record<string, unknown>][] = [
  ['client__shell', (command) => ({ command: ['bash', '-lc', command] })],
  ['client__shell_command', (command) => ({ command })],
  ['client__exec_command', (command) => ({ cmd: command })],
];

function offers(body: unknown, name: string): boolean {
  const tools = (body as { tools?: { name?: string; function?: { name?: string } }[] }).tools ?? [];
  return tools.some((tool) => (tool.name ?? tool.function?.name) === name);
}

export function mindScript(request: FakeRequest): FakeReply {
  const prompt = request.lastUserText;
  if (request.system.includes('You are the Subconscious')) {
    const user = tagContent(prompt, 'ED_user') ?? '';
    const agent = tagContent(prompt, 'ED_agent') ?? '';
    const history = tagContent(prompt, 'S_quiet_history') ?? '';
    const cycle = history ? history.split('\n---\n').length + 1 : 1;
    const trigger = user.includes('[[speak]]') && !agent.startsWith(spontaneousMarker);
    const mood = /sad|tired/i.test(user) ? 'gentle' : user ? 'curious' : 'calm';
    return {
      text:
        `<S_loud>${user ? `They said "${user.slice(0, 40)}". Answer warmly.` : ''}</S_loud>` +
        `<S_quiet>Cycle ${cycle}: mulling over ${user ? 'what they said' : 'the silence'}.</S_quiet>` +
        `<M_AND_C><mood>${mood}</mood><criteria>Keep it short; ask one question.</criteria></M_AND_C>` +
        `<trigger>${trigger}</trigger>`,
    };
  }
  const results = toolResults(request.body);
  if (results) {
    // A browser page is quoted by its first heading (its first line is the HTTP status).
    const lines = results.map((result) => (result.startsWith('HTTP ') ? (/- heading "([^"]+)"/.exec(result)?.[1] ?? result.split('\n')[0]!) : result.split('\n')[0]!).slice(0, 80));
    return { text: `<ID_loud>Here is what the tools said: ${lines.join(' | ')}</ID_loud><ID_quiet>${results.length} results came back.</ID_quiet>` };
  }
  const user = tagContent(prompt, 'ED_user');
  const attached = /\[attached file: \/workspace\/(uploads\/[^\]]*?) — image/.exec(user ?? '')?.[1];
  if (user?.includes('[[look]]') && attached && offers(request.body, 'view_image')) {
    // What it was shown with the words, then a second look and the picture back in the chat.
    const seen = imagesIn(((request.body as { messages?: WireMessage[] }).messages ?? []).at(-1));
    return {
      text: `<ID_loud>I got ${seen} image${seen === 1 ? '' : 's'} with your message; looking again and showing it back.</ID_loud><ID_quiet>caption ${attached.split('/').pop()}: bars of four heights, the fourth the tallest</ID_quiet>`,
      toolCalls: [
        { name: 'view_image', input: { path: attached } },
        { name: 'show_file', input: { path: attached } },
      ],
    };
  }
  const browse = /\[\[browse (\S+)\]\]/.exec(user ?? '');
  if (browse && offers(request.body, 'browser_open')) {
    return { text: '<ID_loud>Opening the page.</ID_loud>', toolCalls: [{ name: 'browser_open', input: { url: browse[1] } }] };
  }
  if (user?.includes('[[remember]]') && offers(request.body, 'remember')) {
    return { text: '<ID_loud>I will remember that.</ID_loud>', toolCalls: [{ name: 'remember', input: { content: user.replace('[[remember]]', '').trim() } }] };
  }
  const remind = /\[\[remind (\S+ \S+)\]\]/.exec(user ?? '');
  if (remind && offers(request.body, 'schedule')) {
    // A reminder at the given local time, and a recurring job (which asks first).
    return {
      text: '<ID_loud>I will remind you, and check every weekday.</ID_loud>',
      toolCalls: [
        { name: 'schedule', input: { operation: 'create', kind: 'once', when: remind[1], time_zone: 'Europe/Madrid', message: 'Call the dentist' } },
        { name: 'schedule', input: { operation: 'create', kind: 'cron', when: '0 8 * * 1-5', time_zone: 'Europe/Madrid', message: 'Morning check' } },
      ],
    };
  }
  if (user?.includes('[[elicit]]') && offers(request.body, 'everything__trigger-elicitation-request')) {
    return { text: '<ID_loud>The server has a question for you.</ID_loud>', toolCalls: [{ name: 'everything__trigger-elicitation-request', input: {} }] };
  }
  if (user?.includes('[[mcp]]') && offers(request.body, 'everything__echo')) {
    return { text: '<ID_loud>Asking the MCP server.</ID_loud>', toolCalls: mcpStepCalls };
  }
  const echo = /\[\[bash (\w+)\]\]/.exec(user ?? '');
  if (echo && offers(request.body, 'bash')) {
    return { text: `<ID_loud>Running echo ${echo[1]}.</ID_loud>`, toolCalls: [{ name: 'bash', input: { command: `echo ${echo[1]}`, explanation: 'Say the word back' } }] };
  }
  if (user?.includes('[[tools]]') && offersTools(request.body)) {
    return { text: '<ID_loud>Creating notes.txt, then I will show it and work something out.</ID_loud><ID_quiet>Plan: write, show, compute.</ID_quiet>', toolCalls: toolStepCalls };
  }
  // A client's own function (the Responses door, issue 78 §1): `[[client name {json}]]` calls it as offered.
  const client = /\[\[client (\w+) (\{.*?\})\]\]/.exec(user ?? '');
  if (client && offers(request.body, `client__${client[1]}`)) {
    return { text: '<ID_loud>Asking your machine.</ID_loud>', toolCalls: [{ name: `client__${client[1]}`, input: JSON.parse(client[2]!) as Record<string, unknown> }] };
  }
  // Codex's shell, whichever of its names and shapes this version offers: `[[client-shell <command>]]`.
  const shell = /\[\[client-shell (.+?)\]\]/.exec(user ?? '');
  const shellTool = shell && clientShells.find(([name]) => offers(request.body, name));
  if (shell && shellTool) return { text: '<ID_loud>Running it on your machine.</ID_loud>', toolCalls: [{ name: shellTool[0], input: shellTool[1](shell[1]!) }] };
  if (user === null) {
    return { text: `<ID_loud>${spontaneousMarker} I kept thinking about what you said.</ID_loud><ID_quiet>I chose to speak first.</ID_quiet>` };
  }
  return { text: `<ID_loud>You said: ${user}</ID_loud><ID_quiet>Private note: they said ${user.length} characters.</ID_quiet>` };
}
