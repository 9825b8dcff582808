// What the Internal Dialog is shown with the words it answers (issue 33): the images and PDFs the
// person attached to those messages, found by the file lines in their text (lib/attachments/
// file-line.ts), read from the session's workspace (the bytes must still be the ones uploaded),
// and made ready for the layer's provider — images resized and re-encoded (the same bytes every
// time, so the cached prefix holds), PDFs as documents where the provider takes them, else as
// their text. A model known not to see images gets the lines alone; one that refuses them once is
// remembered as blind until the process restarts.
import { fileLinesIn, replaceFileLines } from '@/lib/attachments/file-line';
import { ImageRefusedError } from '@/lib/attachments/image-prep';
import { PdfRefusedError, PDF_TOKENS_PER_PAGE, readPdf, sendableAsDocument } from '@/lib/attachments/pdf-prep';
import type { BackendMessage, ContentBlock } from '@/lib/backends/model-backend';
import { imageBlock, imageProviderOf, imagesAllowed } from '@/lib/mind/image-sight';
import type { LayerModelConfig } from '@/lib/config/model-config';
import type { ToolCallRecord } from '@/lib/store/tool-calls-repository';
import { appendMemory } from '@/lib/memory/memory-store';
import { findSessionUploads, type UploadRecord } from '@/lib/store/uploads-repository';
import { uploadBytes } from '@/lib/tools/upload-bytes';

export interface TurnVisuals {
  blocks: ContentBlock[];
  /** The files the model was shown. */
  shown: UploadRecord[];
  /** Files that could not be shown, and why (said in the Internal panel's thoughts). */
  notes: string[];
}

async function pdfBlock(bytes: Buffer, upload: UploadRecord, documents: boolean): Promise<ContentBlock> {
  const facts = await readPdf(bytes);
  const label = `/workspace/${upload.path}`;
  if (documents && sendableAsDocument(facts)) {
    return { type: 'document', mediaType: 'application/pdf', data: bytes.toString('base64'), text: facts.text, tokens: facts.pages * PDF_TOKENS_PER_PAGE, label };
  }
  const cut = facts.textPages < facts.pages ? ` (the first ${facts.textPages} of ${facts.pages} pages)` : '';
  return { type: 'text', text: `[${label}, its text${cut}:]\n${facts.text || '(no text in it)'}` };
}

/** The blocks to show with the user's words of a turn (none when nothing is attached). */
export async function visualsForTurn(sessionId: string, texts: readonly string[], config: LayerModelConfig): Promise<TurnVisuals> {
  const ids = [...new Set(texts.flatMap((text) => fileLinesIn(text).filter((line) => line.role === 'attached').map((line) => line.id)))];
  if (ids.length === 0) return { blocks: [], shown: [], notes: [] };
  const uploads = await findSessionUploads(sessionId, ids);
  const provider = imageProviderOf(config);
  const allowed = imagesAllowed(config);
  const blocks: ContentBlock[] = [];
  const shown: UploadRecord[] = [];
  const notes: string[] = [];
  for (const id of ids) {
    const upload = uploads.find((candidate) => candidate.id === id);
    if (!upload || (upload.kind !== 'image' && upload.kind !== 'pdf')) continue;
    if (upload.kind === 'image' && allowed !== true) {
      notes.push(`${upload.name} not shown: ${allowed}`);
      continue;
    }
    const bytes = await uploadBytes(upload);
    if (typeof bytes === 'string') {
      notes.push(bytes);
      continue;
    }
    try {
      if (upload.kind === 'image') blocks.push(await imageBlock(bytes, upload.sha256, provider, `/workspace/${upload.path}`));
      else blocks.push(await pdfBlock(bytes, upload, provider === 'anthropic'));
      shown.push(upload);
    } catch (error) {
      if (!(error instanceof ImageRefusedError) && !(error instanceof PdfRefusedError)) throw error;
      notes.push(`${upload.name} not shown: ${error.message}`);
    }
  }
  return { blocks, shown, notes };
}

/** The user message with what it shows: images and documents first (as the providers advise), then the words. */
export function withVisuals(content: string, visuals: readonly ContentBlock[]): { role: 'user'; content: string; blocks?: ContentBlock[] } {
  if (visuals.length === 0) return { role: 'user', content };
  return { role: 'user', content, blocks: [...visuals, { type: 'text', text: content }] };
}

/** The request with no image in it (a model that refused them): documents and text stay. */
export function withoutImages<T extends { messages: BackendMessage[] }>(request: T): T {
  const strip = (blocks: ContentBlock[]) =>
    blocks.filter((block) => block.type !== 'image').map((block) => (block.type === 'tool-result' && block.images ? { ...block, images: undefined } : block));
  return { ...request, messages: request.messages.map((message) => (message.blocks ? { ...message, blocks: strip(message.blocks) } : message)) };
}

export function hasImages(request: { messages: BackendMessage[] }): boolean {
  return request.messages.some((message) => message.blocks?.some((block) => block.type === 'image' || (block.type === 'tool-result' && (block.images?.length ?? 0) > 0)));
}

/** The lines of the files the agent showed during a turn (show_file), to follow its reply in the chat. */
export function shownFileLines(calls: readonly ToolCallRecord[]): string[] {
  return calls
    .filter((call) => call.name === 'show_file' && call.status === 'succeeded' && call.result)
    .flatMap((call) => fileLinesIn(call.result!).filter((line) => line.role === 'shown').map((line) => call.result!.slice(line.index, line.index + line.length)));
}

/**
 * The Internal Dialog's captions of what it was shown (`caption <name>: what it shows` lines in
 * its thoughts, as its instructions ask) become long-term memories of the persona, so a later
 * conversation recalls the picture by what was in it as well as by its name.
 */
export async function rememberCaptions(input: { personaName: string; sessionId: string; quiet: string; shown: readonly UploadRecord[] }): Promise<number> {
  let kept = 0;
  for (const match of input.quiet.matchAll(/^[\s*-]*caption\s+(.+?):\s*(.+)$/gim)) {
    const named = match[1]!.trim().replace(/^["'`]|["'`]$/g, '');
    const upload = input.shown.find((candidate) => candidate.name === named || candidate.path === named || `/workspace/${candidate.path}` === named);
    if (!upload) continue;
    const what = upload.kind === 'image' ? `Picture "${upload.name}"${upload.width ? ` (${upload.width} × ${upload.height})` : ''}` : `Document "${upload.name}"`;
    await appendMemory({ personaName: input.personaName, sessionId: input.sessionId, kind: 'episode', scope: 'long', importance: 0.5, content: `${what} the user sent: ${match[2]!.trim().slice(0, 400)}` });
    kept++;
  }
  return kept;
}

/**
 * The model's own words without file lines: only the app writes them (a message's files, what
 * show_file showed), so a line the model wrote — say, echoing a web page that asked it to — never
 * puts a file in the chat.
 */
export function withoutFileLines(text: string): string {
  return replaceFileLines(text, () => '', { tidy: true });
}
