// A PDF made ready for a model (issue 33): read with pdf.js (through unpdf) for its page count and
// the text of its first pages — never rendered, never run: pdf.js on the server evaluates no
// script, and a PDF that carries one (JavaScript, an open action) is never sent as a file, only
// its text. A provider that takes documents (Anthropic, the CLI) gets the file itself when it is
// short enough; every other backend, and every long PDF, gets the text of its first pages.
import type { getDocumentProxy as GetDocumentProxy } from 'unpdf';
import { errorText } from '@/lib/errors/error-text';

/** Anthropic's document limit; longer PDFs go as text. */
export const PDF_DOCUMENT_MAX_PAGES = 100;
/** Pages whose text is read when the text is what is sent. */
export const PDF_TEXT_MAX_PAGES = 50;
/** The text is cut here (about 15,000 tokens). */
export const PDF_TEXT_MAX_CHARS = 60_000;
/** Anthropic's per-page estimate for a document (the page's text and its image). */
export const PDF_TOKENS_PER_PAGE = 1_500;

export class PdfRefusedError extends Error {
  readonly code = 'pdf_refused';
}

export interface PdfFacts {
  pages: number;
  /** The text of the first pages (at most PDF_TEXT_MAX_PAGES, PDF_TEXT_MAX_CHARS). */
  text: string;
  /** Pages whose text is in `text`. */
  textPages: number;
  /** It carries JavaScript or an action run on opening. */
  hasScript: boolean;
}

const scriptMarkers = /\/(JavaScript|JS|OpenAction|AA|Launch)\b/;

export async function readPdf(bytes: Uint8Array): Promise<PdfFacts> {
  let document: Awaited<ReturnType<typeof GetDocumentProxy>>;
  // pdf.js is loaded with the first PDF, not with the app (issue 43 §4).
  const { getDocumentProxy } = await import('unpdf');
  try {
    // A copy: pdf.js takes the buffer over (transfers it).
    document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, stopAtErrors: true });
  } catch (error) {
    throw new PdfRefusedError(`not a PDF that can be read: ${errorText(error)}`);
  }
  try {
    const pages = document.numPages;
    const texts: string[] = [];
    let length = 0;
    let textPages = 0;
    for (let number = 1; number <= Math.min(pages, PDF_TEXT_MAX_PAGES) && length < PDF_TEXT_MAX_CHARS; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = content.items.map((item) => ('str' in item ? item.str : '')).join(' ').replace(/\s+/g, ' ').trim();
      texts.push(`[page ${number}] ${text}`);
      length += text.length;
      textPages = number;
    }
    const hasScript = scriptMarkers.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
    return { pages, text: texts.join('\n').slice(0, PDF_TEXT_MAX_CHARS), textPages, hasScript };
  } finally {
    await document.loadingTask.destroy();
  }
}

/** What the upload's note says about a PDF (null when there is nothing to say). */
export function pdfNote(facts: PdfFacts): string | null {
  const notes: string[] = [];
  if (facts.hasScript) notes.push('it carries JavaScript: never opened here, the model reads its text only');
  if (facts.pages > PDF_TEXT_MAX_PAGES) notes.push(`${facts.pages.toLocaleString('en')} pages: the model reads the text of the first ${facts.textPages}`);
  return notes.length > 0 ? notes.join('; ') : null;
}

/** Whether the file itself may go to a provider that takes documents. */
export function sendableAsDocument(facts: PdfFacts): boolean {
  return !facts.hasScript && facts.pages <= PDF_DOCUMENT_MAX_PAGES;
}
