// What leaves the process in a span, whoever made it — ours or Next.js's own (issue 72 §3: with
// content off, Next's spans exported full URLs, the owner's search words in their query strings
// and the secrets inside MCP servers' URLs, and exceptions with their messages). Every span passes
// here before its exporter: a URL anywhere in it (name, attribute, event) keeps its scheme, host
// and path — no user or password, no query, no fragment; with content off an exception says its
// kind and nothing of its message or stack, and an error status only that it failed.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>]+/gi;

/** A URL's scheme, host and path; anything else it carried is gone. */
function bareUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return text.replace(/[?#].*$/, '').replace(/\/\/[^/@]*@/, '//');
  }
}

/** Text with every URL in it bare; a path with a query (http.target, url.path) loses the query too. */
export function scrubText(text: string, key = ''): string {
  const bare = text.replace(URL_IN_TEXT, bareUrl);
  return /(^|\.)(target|query|path)$|route$/.test(key) || /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \//.test(bare) ? bare.replace(/\?[^\s]*/g, '') : bare;
}

function scrubValue(value: AttributeValue | undefined, key: string): AttributeValue | undefined {
  if (typeof value === 'string') return scrubText(value, key);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? scrubText(item, key) : item)) as AttributeValue;
  return value;
}

export function scrubAttributes(attributes: Attributes, content: boolean): Attributes {
  const scrubbed: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'url.query') continue;
    if (!content && (key === 'exception.message' || key === 'exception.stacktrace')) continue;
    scrubbed[key] = scrubValue(value, key);
  }
  return scrubbed;
}

/** The span as it may leave: the same span, with its name, attributes, events and status scrubbed. */
export function scrubSpan(span: ReadableSpan, content: boolean): ReadableSpan {
  const events = span.events.map((event) => ({ ...event, name: scrubText(event.name), ...(event.attributes && { attributes: scrubAttributes(event.attributes, content) }) }));
  const exceptionType = span.events.find((event) => event.name === 'exception')?.attributes?.['exception.type'];
  const status = span.status.message === undefined ? span.status : { ...span.status, message: content ? scrubText(span.status.message) : typeof exceptionType === 'string' ? exceptionType : 'error' };
  const scrubbed = Object.create(span) as ReadableSpan;
  Object.defineProperties(scrubbed, {
    name: { value: scrubText(span.name), enumerable: true },
    attributes: { value: scrubAttributes(span.attributes, content), enumerable: true },
    events: { value: events, enumerable: true },
    status: { value: status, enumerable: true },
  });
  return scrubbed;
}

/** An exporter that sends only scrubbed spans (`content`: prompts and messages may be captured). */
export class ScrubbingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly content: () => boolean,
  ) {}

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    const content = this.content();
    this.inner.export(
      spans.map((span) => scrubSpan(span, content)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
