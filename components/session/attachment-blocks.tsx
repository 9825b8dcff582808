'use client';

import { unescapeTagContent } from '@/lib/mind/tags/escape';
import { FilePreviews, splitFileLines } from './file-previews';

const blockPattern = /<(mcp_resource|mcp_prompt)((?:\s+[a-z_]+="[^"]*")*)>([\s\S]*?)<\/\1>/g;
const attributeOf = (attributes: string, name: string) => {
  const raw = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
  return raw?.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&amp;/g, '&') ?? null;
};

/**
 * A user message as written, with what was attached from MCP servers (the blocks the model reads
 * after the text) shown as folded chips instead of raw tags, and its files as thumbnails.
 */
export function MessageWithAttachments(props: { content: string }) {
  const { text: content, files } = splitFileLines(props.content);
  const blocks = [...content.matchAll(blockPattern)];
  if (blocks.length === 0) {
    return (
      <>
        {content && <p className="text-sm break-words whitespace-pre-wrap">{content}</p>}
        <FilePreviews files={files} />
      </>
    );
  }
  const text = content.slice(0, blocks[0]!.index).trimEnd();
  return (
    <div className="space-y-1">
      <FilePreviews files={files} />
      {text && <p className="text-sm break-words whitespace-pre-wrap">{text}</p>}
      {blocks.map((block, index) => {
        const kind = block[1]!;
        const server = attributeOf(block[2]!, 'server');
        const label = kind === 'mcp_resource' ? `${server}: ${attributeOf(block[2]!, 'uri')}` : `/${server}:${attributeOf(block[2]!, 'name')}`;
        return (
          <details key={index} className="rounded bg-indigo-500/40 px-2 py-0.5 text-xs" data-testid="message-attachment">
            <summary className="cursor-pointer font-mono">📎 {label}</summary>
            <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap">{unescapeTagContent(block[3]!)}</pre>
          </details>
        );
      })}
    </div>
  );
}
