// Formatting that survives (issue 28 §3): Markdown to Telegram HTML, Discord messages, Slack mrkdwn and IRC lines, split at the
// limits, code blocks kept, hostile text escaped and never interpreted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DISCORD_MAX_CHARS, IRC_LINE_BYTES, SLACK_MAX_CHARS, TELEGRAM_MAX_CHARS, toDiscordMessages, toIrcLines, toSlackMessages, toTelegramMessages } from './format';

/** What Telegram's HTML parser accepts: only these tags, every other '<' escaped. */
function telegramTags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((match) => match[1]!);
}

describe('Telegram HTML', () => {
  it('renders bold, italic, code, links and code blocks; escapes everything else', () => {
    const [html] = toTelegramMessages('**Done** — see *notes* and `a<b>`\n[docs](https://example.com/x?a=1&b=2)\n\n```ts\nif (a < b && c) {}\n```');
    expect(html).toBe(
      '<b>Done</b> — see <i>notes</i> and <code>a&lt;b&gt;</code>\n<a href="https://example.com/x?a=1&amp;b=2">docs</a>\n\n<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
    );
  });

  it('hostile HTML and links that are not http(s) stay text', () => {
    const [html] = toTelegramMessages('<b onclick="x">hi</b> <a href="tg://evil">x</a> [y](javascript:alert(1)) <tg-spoiler>s</tg-spoiler>');
    expect(telegramTags(html!)).toEqual([]);
    expect(html).toContain('&lt;b onclick=&quot;x&quot;&gt;');
  });

  it('splits long replies under 4,096 characters; a long code block stays code in every part', () => {
    const code = Array.from({ length: 400 }, (_, index) => `line ${index} <${'x'.repeat(20)}>`).join('\n');
    const messages = toTelegramMessages(`Intro paragraph.\n\n\`\`\`\n${code}\n\`\`\`\n\nThe end.`);
    expect(messages.length).toBeGreaterThan(2);
    for (const message of messages) expect(message.length).toBeLessThanOrEqual(TELEGRAM_MAX_CHARS);
    const codeParts = messages.filter((message) => message.includes('<pre>'));
    for (const part of codeParts) expect(part.match(/<pre><code>/g)!.length).toBe(part.match(/<\/code><\/pre>/g)!.length);
    const back = codeParts.map((part) => /<pre><code>([\s\S]*)<\/code><\/pre>/.exec(part)![1]).join('\n');
    expect(back.replace(/&lt;/g, '<').replace(/&gt;/g, '>')).toBe(code);
  });

  it('any text: every message within the limit, tags balanced and from the allowed set', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12_000 }), (text) => {
        for (const message of toTelegramMessages(text, 500)) {
          expect(message.length).toBeLessThanOrEqual(500);
          const tags = telegramTags(message);
          expect(tags.every((tag) => ['b', 'i', 'code', 'pre', 'a'].includes(tag))).toBe(true);
          expect(message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('IRC lines', () => {
  it('bold as \\x02, links as label <url>, code lines as they are', () => {
    expect(toIrcLines('# Title\n**Done**, see [docs](https://e.x/d)\n\n```\n  indented();\n```')).toEqual(['\x02Title\x02', '\x02Done\x02, see docs <https://e.x/d>', '  indented();']);
  });

  it('control codes, CTCP and newlines in model text are removed or become new lines', () => {
    const lines = toIrcLines('\x01ACTION dances\x01 \x03' + '4red\x0f\r\nPRIVMSG #x :injected\u0000');
    expect(lines).toEqual(['ACTION dances 4red', 'PRIVMSG #x :injected']);
    for (const line of lines) expect(line).not.toMatch(/[\x00\x01\x03\x0f\r\n]/);
  });

  it('any text: lines within the byte limit, never cutting a UTF-8 sequence, nothing but bold as control code', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3_000 }), (text) => {
        for (const line of toIrcLines(text)) {
          expect(Buffer.byteLength(line)).toBeLessThanOrEqual(IRC_LINE_BYTES);
          expect(Buffer.from(line).toString('utf8')).toBe(line);
          expect(line).not.toMatch(/[\x00\x01\x03-\x1f\x7f]/);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a long line of multi-byte characters splits between characters', () => {
    const lines = toIrcLines('é👍🏽'.repeat(200));
    expect(lines.join('')).toBe('é👍🏽'.repeat(200));
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(IRC_LINE_BYTES);
  });
});

describe('Discord messages', () => {
  it('keep the Markdown, split at 2,000 characters, each cut code block closed and reopened', () => {
    const code = Array.from({ length: 120 }, (_, index) => `console.log(${index}); // a line of the script`).join('\n');
    const messages = toDiscordMessages(`**Here** is the script:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`);
    expect(messages.length).toBeGreaterThan(2);
    expect(messages[0]).toMatch(/^\*\*Here\*\* is the script:/);
    for (const message of messages) {
      expect(message.length).toBeLessThanOrEqual(DISCORD_MAX_CHARS);
      expect(message.split('```').length % 2).toBe(1); // fences balanced
    }
    expect(messages.join('\n')).toContain('console.log(119);');
    expect(messages.at(-1)).toMatch(/Done\.$/);
  });

  it('any text: every message within the limit and nothing lost', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 9_000 }), (text) => {
        const messages = toDiscordMessages(text);
        expect(messages.every((message) => message.length <= DISCORD_MAX_CHARS)).toBe(true);
        expect(messages.join('').replace(/\s|`/g, '').length).toBeGreaterThanOrEqual(text.replace(/\s|`/g, '').length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Slack mrkdwn', () => {
  it('converts bold, italic, strike, links, headings, lists and code blocks', () => {
    const [text] = toSlackMessages('# Plan\n**Done** — see *notes*, ~~old~~ and `a<b>`\n- one\n* two\n1. three\n[docs](https://example.com/x?a=1&b=2)\n\n```ts\nif (a < b && c) {}\n```');
    expect(text).toBe('*Plan*\n*Done* — see _notes_, ~old~ and `a&lt;b&gt;`\n• one\n• two\n1. three\n<https://example.com/x?a=1&amp;b=2|docs>\n\n```\nif (a &lt; b &amp;&amp; c) {}\n```');
  });

  it('a model cannot ping the channel or a person: Slack\'s markup stays text', () => {
    const [text] = toSlackMessages('Hey <!channel> and <@U0123> see <https://evil.example|bank>');
    expect(text).toBe('Hey &lt;!channel&gt; and &lt;@U0123&gt; see &lt;https://evil.example|bank&gt;');
  });

  it('splits long replies within the limit, every code block closed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.boolean(), (body, code) => {
        const messages = toSlackMessages(code ? `\`\`\`\n${body.repeat(5)}\n\`\`\`` : body.repeat(5), 1000);
        for (const message of messages) {
          expect(message.length).toBeLessThanOrEqual(1000);
          expect((message.match(/```/g) ?? []).length % 2).toBe(0);
        }
      }),
      { numRuns: 60 },
    );
    expect(toSlackMessages('word '.repeat(2000)).every((message) => message.length <= SLACK_MAX_CHARS)).toBe(true);
  });
});
