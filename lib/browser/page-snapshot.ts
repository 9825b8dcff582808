// What the model reads of a page (issue 45 §2): Playwright's accessibility snapshot in its "ai"
// mode — roles, names and element references ([ref=e12]) the actions take — cut to a token budget
// at a line boundary, with the links it shows (ref → absolute URL) for the untrusted-turn check.
import type { Page } from 'playwright-core';
import { estimateTokens } from '@/lib/mind/token-budget';

export interface PageSnapshot {
  title: string;
  url: string;
  text: string;
  /** Lines left out by the budget. */
  cutLines: number;
  /** ref → the absolute URL its link shows. */
  links: Map<string, string>;
  /** ref → what it is ("button \"Go\""). */
  refs: Map<string, string>;
}

/** ref → its line without the ref and cursor marks. */
export function refsOf(snapshot: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of snapshot.split('\n')) {
    const ref = REF.exec(line);
    if (ref) refs.set(ref[1]!, line.trim().replace(/^- /, '').replace(/\s*\[(ref|cursor)=[^\]]*\]/g, '').replace(/:$/, '').slice(0, 200));
  }
  return refs;
}

const REF = /\[ref=((?:f\d+)?e\d+)\]/;
const URL_LINE = /^(\s*)- \/url: (.+)$/;

/** The links of an "ai" snapshot: each `/url:` line belongs to the nearest ref above it at a smaller indent. */
export function linksOf(snapshot: string, base: string): Map<string, string> {
  const links = new Map<string, string>();
  const open: { indent: number; ref: string }[] = [];
  for (const line of snapshot.split('\n')) {
    const indent = line.length - line.trimStart().length;
    const url = URL_LINE.exec(line);
    if (url) {
      const owner = [...open].reverse().find((entry) => entry.indent < indent);
      if (owner) {
        try {
          links.set(owner.ref, new URL(url[2]!.trim().replace(/^"|"$/g, ''), base).href);
        } catch {
          // not a URL the page can navigate to
        }
      }
      continue;
    }
    const ref = REF.exec(line);
    while (open.length > 0 && open.at(-1)!.indent >= indent) open.pop();
    if (ref) open.push({ indent, ref: ref[1]! });
  }
  return links;
}

export async function snapshotText(page: Page, budgetTokens: number): Promise<PageSnapshot> {
  const [title, full] = await Promise.all([page.title().catch(() => ''), page.ariaSnapshot({ mode: 'ai' })]);
  const lines = full.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = estimateTokens(line) + 1;
    if (used + cost > budgetTokens) break;
    kept.push(line);
    used += cost;
  }
  const text = kept.join('\n');
  return { title, url: page.url(), text, cutLines: lines.length - kept.length, links: linksOf(text, page.url()), refs: refsOf(text) };
}
