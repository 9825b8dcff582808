// Every link in README.md and docs/ resolves (issue 50): a relative link names a file or folder of
// the repository, and its #anchor a heading of that page (GitHub's slugs); a web link is a
// well-formed http(s) address (not dialled: tests stay on loopback). Code is not read for links.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The text without fenced code blocks and inline code. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

describe('links in README.md and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/guide.md', 'docs/memory.md', 'docs/channels.md', 'docs/configuration.md']));
    expect(links(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
    expect(headingSlugs('# Memory: what outlives a session\n## A, b & c\n## A, b & c')).toEqual(new Set(['memory-what-outlives-a-session', 'a-b--c', 'a-b--c-1']));
  });

  for (const page of pages) {
    it(`${page}: every link resolves`, () => {
      const broken: string[] = [];
      for (const target of links(fs.readFileSync(path.join(root, page), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
          if (/^https?:/i.test(target) && !URL.canParse(target)) broken.push(`${target}: not a web address`);
          else if (!/^(https?|mailto):/i.test(target)) broken.push(`${target}: not a web or mail address`);
          continue;
        }
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file ? path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(file)) : path.join(root, page);
        if (!resolved.startsWith(root) || !fs.existsSync(resolved)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !headingSlugs(fs.readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target}: no heading #${anchor}`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('README stays short: within 250 lines, the two commands first', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1]!.trim());
    expect(blocks[0]).toBe('npm install\nnpm run dev');
    expect(blocks[1]).toBe('npm test');
  });
});
