// What a reply looks like on the other side (issue 28 §3). The agent writes Markdown; Telegram
// renders a small HTML subset (parse_mode HTML: b, i, code, pre, a — everything else escaped) and
// IRC plain lines with control codes; Slack its mrkdwn. Text from the model or a sender is escaped, never
// interpreted: HTML stays text, IRC control codes and CTCP are removed, a newline starts a new
// line. Long replies are split at the providers' limits (Telegram 4,096 characters per message;
// IRC lines of at most `ircLineBytes` bytes, never inside a UTF-8 sequence or a grapheme), and a
// code block cut in two is closed and reopened so each part stays a code block.

export const TELEGRAM_MAX_CHARS = 4096;
/** The text of one PRIVMSG: 512 bytes a line, less the command, target, prefix the server adds and CRLF. */
export const IRC_LINE_BYTES = 350;

type Block = { kind: 'code'; language: string; text: string } | { kind: 'text'; text: string };

/** Splits Markdown into fenced code blocks and the text between them (an unclosed fence runs to the end). */
export function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let text: string[] = [];
  const flush = () => {
    if (text.join('').trim()) blocks.push({ kind: 'text', text: text.join('\n').replace(/^\n+|\n+$/g, '') });
    text = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const fence = /^\s*(```+|~~~+)\s*([\w+#.-]*)\s*$/.exec(lines[index]!);
    if (!fence) {
      text.push(lines[index]!);
      continue;
    }
    flush();
    const code: string[] = [];
    for (index++; index < lines.length && !lines[index]!.trim().startsWith(fence[1]!); index++) code.push(lines[index]!);
    blocks.push({ kind: 'code', language: fence[2] ?? '', text: code.join('\n') });
  }
  flush();
  return blocks;
}

// ── Telegram ───────────────────────────────────────────────────────────────────────────────

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Inline Markdown (code spans, bold, italic, links) to Telegram HTML; everything else escaped. */
function inlineHtml(text: string): string {
  const pieces: string[] = [];
  // Code spans first: nothing inside them is Markdown.
  const parts = text.split(/(`[^`\n]+`)/);
  for (const part of parts) {
    if (/^`[^`\n]+`$/.test(part)) {
      pieces.push(`<code>${escapeHtml(part.slice(1, -1))}</code>`);
      continue;
    }
    let html = escapeHtml(part);
    html = html.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label: string, url: string) => `<a href="${url}">${label}</a>`);
    html = html.replace(/\*\*([^*\n]+)\*\*/g, '<b>$1</b>').replace(/__([^_\n]+)__/g, '<b>$1</b>');
    html = html.replace(/(^|[^\w*])\*([^*\n]+)\*(?=[^\w*]|$)/g, '$1<i>$2</i>').replace(/(^|[^\w])_([^_\n]+)_(?=[^\w]|$)/g, '$1<i>$2</i>');
    html = html.replace(/^#{1,6} +(.+)$/gm, '<b>$1</b>');
    pieces.push(html);
  }
  return pieces.join('');
}

function codeHtml(language: string, text: string): string {
  const attribute = language ? ` class="language-${escapeHtml(language)}"` : '';
  return `<pre><code${attribute}>${escapeHtml(text)}</code></pre>`;
}

/** Cuts `text` into pieces whose rendering fits `limit`, at line ends, else spaces, else anywhere (never inside a surrogate pair). */
function cutToFit(text: string, render: (piece: string) => string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest) {
    if (render(rest).length <= limit) {
      pieces.push(rest);
      break;
    }
    // The longest prefix that fits, found by halving; then back to a line end or a space in it.
    let low = 1;
    let high = rest.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (render(rest.slice(0, middle)).length <= limit) low = middle;
      else high = middle - 1;
    }
    let cut = low;
    if (/[\uD800-\uDBFF]/.test(rest[cut - 1] ?? '')) cut--;
    const newline = rest.lastIndexOf('\n', cut - 1);
    const space = rest.lastIndexOf(' ', cut - 1);
    if (newline > cut / 2) cut = newline + 1;
    else if (space > cut / 2) cut = space + 1;
    pieces.push(rest.slice(0, cut).replace(/\n$/, ''));
    rest = rest.slice(cut);
  }
  return pieces;
}

/** Markdown as Telegram messages (parse_mode HTML), each at most 4,096 characters. */
export function toTelegramMessages(markdown: string, limit = TELEGRAM_MAX_CHARS): string[] {
  const rendered: string[] = [];
  for (const block of markdownBlocks(markdown)) {
    if (block.kind === 'code') rendered.push(...cutToFit(block.text, (piece) => codeHtml(block.language, piece), limit).map((piece) => codeHtml(block.language, piece)));
    else rendered.push(...cutToFit(block.text, inlineHtml, limit).map(inlineHtml));
  }
  return joinPieces(rendered, limit);
}

/** Rendered pieces packed into as few messages as fit `limit`, a blank line between pieces. */
function joinPieces(pieces: readonly string[], limit: number): string[] {
  const messages: string[] = [];
  for (const piece of pieces) {
    const last = messages.at(-1);
    if (last !== undefined && last.length + 2 + piece.length <= limit) messages[messages.length - 1] = `${last}\n\n${piece}`;
    else messages.push(piece);
  }
  return messages.length > 0 ? messages : [''];
}

// ── Discord ──────────────────────────────────────────────────────────────────────────────

export const DISCORD_MAX_CHARS = 2000;

/**
 * Markdown as Discord messages (issue 47): Discord renders Markdown itself, so the text is kept as
 * written — only split at 2,000 characters, a code block cut in two closed and reopened — and
 * mentions are disarmed by the sender (allowed_mentions: none), not here.
 */
export function toDiscordMessages(markdown: string, limit = DISCORD_MAX_CHARS): string[] {
  const fence = (language: string, text: string) => `\`\`\`${language}\n${text}\n\`\`\``;
  const rendered: string[] = [];
  for (const block of markdownBlocks(markdown)) {
    if (block.kind === 'code') rendered.push(...cutToFit(block.text, (piece) => fence(block.language, piece), limit).map((piece) => fence(block.language, piece)));
    else if (block.text.trim()) rendered.push(...cutToFit(block.text.trim(), (piece) => piece, limit));
  }
  return joinPieces(rendered, limit);
}

// ── Slack ──────────────────────────────────────────────────────────────────────────────

/** Slack truncates a message's text past 40,000 characters and advises at most 4,000. */
export const SLACK_MAX_CHARS = 4000;

/** The three characters Slack's mrkdwn reads as markup: escaped, so no `<!channel>` or `<@U…>` comes from a model. */
const escapeSlack = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Inline Markdown in a chat's own single marks (Slack's mrkdwn, WhatsApp's): *bold*, _italic_,
 * ~strike~, • lists, headings as bold; inline code kept; each chat its escaping and its links.
 */
function inlineMarks(text: string, escape: (text: string) => string, link: (label: string, url: string) => string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part) => {
      if (/^`[^`\n]+`$/.test(part)) return escape(part);
      const bold = '\u0001';
      return escape(part)
        .replace(/^(\s*)[-*+] +/gm, '$1• ')
        .replace(/^#{1,6} +(.+)$/gm, `${bold}$1${bold}`)
        .replace(/\*\*([^*\n]+)\*\*/g, `${bold}$1${bold}`)
        .replace(/__([^_\n]+)__/g, `${bold}$1${bold}`)
        .replace(/(^|[^\w*])\*([^*\n]+)\*(?=[^\w*]|$)/g, '$1_$2_')
        .replace(/~~([^~\n]+)~~/g, '~$1~')
        .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)|]+)\)/g, (_, label: string, url: string) => link(label, url))
        .replaceAll(bold, '*');
    })
    .join('');
}

const inlineMrkdwn = (text: string) => inlineMarks(text, escapeSlack, (label, url) => `<${url}|${label.replace(/\|/g, '∣')}>`);

/** Markdown as Slack messages (issue 62): mrkdwn, each at most 4,000 characters, a code block cut in two closed and reopened. */
export function toSlackMessages(markdown: string, limit = SLACK_MAX_CHARS): string[] {
  const fence = (text: string) => `\`\`\`\n${escapeSlack(text)}\n\`\`\``;
  const rendered: string[] = [];
  for (const block of markdownBlocks(markdown)) {
    if (block.kind === 'code') rendered.push(...cutToFit(block.text, fence, limit).map(fence));
    else if (block.text.trim()) rendered.push(...cutToFit(block.text.trim(), inlineMrkdwn, limit).map(inlineMrkdwn));
  }
  return joinPieces(rendered, limit);
}

// ── WhatsApp ───────────────────────────────────────────────────────────────────────────────

/** A WhatsApp text message's body: at most 4,096 characters. */
export const WHATSAPP_MAX_CHARS = 4096;

/** WhatsApp's marks; a link as its label and its address (WhatsApp shows an address as a link). */
const inlineWhatsApp = (text: string) => inlineMarks(text, (plain) => plain, (label, url) => (label === url ? url : `${label} (${url})`));

/** Markdown as WhatsApp messages (issue 77 §2): its marks, each at most 4,096 characters, a code block cut in two closed and reopened. */
export function toWhatsAppMessages(markdown: string, limit = WHATSAPP_MAX_CHARS): string[] {
  const fence = (text: string) => `\`\`\`\n${text}\n\`\`\``;
  const rendered: string[] = [];
  for (const block of markdownBlocks(markdown)) {
    if (block.kind === 'code') rendered.push(...cutToFit(block.text, fence, limit).map(fence));
    else if (block.text.trim()) rendered.push(...cutToFit(block.text.trim(), inlineWhatsApp, limit).map(inlineWhatsApp));
  }
  return joinPieces(rendered, limit);
}

// ── IRC ────────────────────────────────────────────────────────────────────────────────────

const BOLD = '\x02';

/** Every control character out (IRC formatting, CTCP's \x01, NUL, CR/LF inside a line), tabs as spaces. */
export function stripControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\t/g, '  ').replace(/[\x00-\x1f\x7f]/g, '');
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Splits one line into pieces of at most `maxBytes` UTF-8 bytes, between graphemes, preferring spaces. */
export function splitUtf8Line(line: string, maxBytes = IRC_LINE_BYTES): string[] {
  const pieces: string[] = [];
  let current = '';
  let bytes = 0;
  let lastSpace = -1;
  for (const { segment } of segmenter.segment(line)) {
    const size = Buffer.byteLength(segment);
    if (bytes + size > maxBytes && current) {
      if (lastSpace > current.length / 2) {
        pieces.push(current.slice(0, lastSpace));
        current = current.slice(lastSpace + 1);
      } else {
        pieces.push(current);
        current = '';
      }
      bytes = Buffer.byteLength(current);
      lastSpace = current.lastIndexOf(' ');
    }
    if (segment === ' ') lastSpace = current.length;
    current += segment;
    bytes += size;
  }
  if (current || pieces.length === 0) pieces.push(current);
  return pieces;
}

/** Markdown as IRC lines: bold kept as \x02, code as its own lines, links as "label <url>", every line within `maxBytes`. */
export function toIrcLines(markdown: string, maxBytes = IRC_LINE_BYTES): string[] {
  const lines: string[] = [];
  for (const block of markdownBlocks(markdown)) {
    for (const raw of block.text.split('\n')) {
      let line = stripControls(raw);
      if (block.kind === 'text') {
        line = line
          .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '$1 <$2>')
          .replace(/^#{1,6} +(.+)$/, `${BOLD}$1${BOLD}`)
          .replace(/\*\*([^*]+)\*\*/g, `${BOLD}$1${BOLD}`)
          .replace(/__([^_]+)__/g, `${BOLD}$1${BOLD}`);
        if (!line.trim()) continue;
      }
      lines.push(...splitUtf8Line(line || ' ', maxBytes));
    }
  }
  return lines.length > 0 ? lines : [''];
}

/** A mail's HTML part (issue 47): the same small subset as Telegram's, in a block that keeps the reply's line breaks. */
export function toMailHtml(markdown: string): string {
  const body = toTelegramMessages(markdown, Number.MAX_SAFE_INTEGER).join('');
  return `<!doctype html><html><body><div style="white-space:pre-wrap;font-family:system-ui,sans-serif;line-height:1.45">${body}</div></body></html>`;
}
