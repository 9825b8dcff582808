'use client';

import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

interface MarkdownNode {
  type: string;
  value?: string;
  children?: MarkdownNode[];
}

/** Raw HTML in the source becomes plain text: shown exactly as typed, never rendered. */
function remarkHtmlAsText() {
  const walk = (node: MarkdownNode) => {
    if (node.type === 'html') node.type = 'text';
    node.children?.forEach(walk);
  };
  return (tree: MarkdownNode) => walk(tree);
}

/** Markdown rendered safely: no raw HTML is ever rendered (no rehype-raw); it shows as text. */
export function MarkdownView({ text, className = 'text-sm' }: { text: string; className?: string }) {
  return (
    <div className={`markdown leading-relaxed break-words ${className}`}>
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]}>{text}</ReactMarkdown>
    </div>
  );
}
