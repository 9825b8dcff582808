'use client';

import type { ComponentProps } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
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

/** An image this app serves itself (a path on this origin); anything else is remote. */
export function isOwnImage(src: unknown): src is string {
  return typeof src === 'string' && src.startsWith('/') && !src.startsWith('//') && !src.startsWith('/\\');
}

/**
 * A remote image in a model's text would load by itself and carry whatever its URL holds to
 * another host (a one-step exfiltration): it is shown as a link instead, its URL visible, loaded
 * only if the user opens it. The page's Content-Security-Policy (img-src 'self') refuses it too.
 */
function SafeImage({ src, alt }: ComponentProps<'img'>) {
  if (isOwnImage(src)) return <img src={src} alt={alt ?? ''} className="max-w-full" />;
  if (typeof src !== 'string' || !src) return <span>[image{alt ? `: ${alt}` : ''}]</span>;
  return (
    <a href={src} target="_blank" rel="noopener noreferrer nofollow" referrerPolicy="no-referrer" title="A remote image: not loaded. Open it in a new tab." className="remote-image">
      [image{alt ? `: ${alt}` : ''} — {src}]
    </a>
  );
}

function SafeLink({ href, children }: ComponentProps<'a'>) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow" referrerPolicy="no-referrer">
      {children}
    </a>
  );
}

const components: Components = { img: SafeImage, a: SafeLink };

/** Markdown rendered safely: no raw HTML is ever rendered (no rehype-raw); it shows as text; remote images are links. */
export function MarkdownView({ text, className = 'text-sm' }: { text: string; className?: string }) {
  return (
    <div className={`markdown leading-relaxed break-words ${className}`}>
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
