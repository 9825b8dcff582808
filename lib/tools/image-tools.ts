// Seeing and showing (issue 33, seed 003's `view_image`): the agent looks at an image in its
// workspace — one it was sent, downloaded or made — and the image goes into its next model call
// (the turn's following steps keep the very same bytes); or it shows a file in the chat, below its
// reply (a chart it drew). Both read through the workspace's descriptors (nothing outside, no
// links), decide what a file is by its bytes (an SVG is never an image), and record the file as
// an upload, so the page shows a thumbnail and the file's bytes are checked when it is served.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { classify, sniff } from '@/lib/attachments/file-kind';
import { fileLine } from '@/lib/attachments/file-line';
import { ImageRefusedError, loadSharp, MAX_INPUT_PIXELS } from '@/lib/attachments/image-prep';
import { imageBlock } from '@/lib/mind/image-sight';
import { insertUpload } from '@/lib/store/uploads-repository';
import { builtinTool, errorOutcome, type ToolOutcome, type ToolRunContext } from '@/lib/tools/tool-types';
import { guarded as fileToolGuard } from '@/lib/tools/file-tools';
import { displayPath, readBytesInside, resolveWorkspacePath } from '@/lib/tools/workspace';
import { sha256Hex } from '@/lib/security/digest';
import { errorText } from '@/lib/errors/error-text';

/** The largest file either tool reads (the upload cap's default). */
const FILE_CAP_BYTES = 20 * 1024 * 1024;

/** The file tools' refusals, and an image that cannot be read safely. */
function guarded(run: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  return fileToolGuard(async () => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ImageRefusedError) return errorOutcome(`Refused: ${error.message}`);
      throw error;
    }
  });
}

function readFile(root: string, requested: string): { bytes: Buffer; relative: string } | ToolOutcome {
  const relative = displayPath(root, resolveWorkspacePath(root, requested));
  const { bytes, size, truncated } = readBytesInside(root, requested, FILE_CAP_BYTES);
  if (truncated) return errorOutcome(`${relative} is ${(size / 1024 / 1024).toFixed(1)} MB: more than the ${FILE_CAP_BYTES / 1024 / 1024} MB these tools read`);
  return { bytes, relative };
}

async function imageSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const metadata = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .metadata()
    .catch((error: unknown) => {
      throw new ImageRefusedError(`not an image that can be read: ${errorText(error)}`);
    });
  if (!metadata.width || !metadata.height) throw new ImageRefusedError('the image has no size');
  const upright = (metadata.orientation ?? 1) >= 5;
  return upright ? { width: metadata.height, height: metadata.width } : { width: metadata.width, height: metadata.height };
}


const viewImageArgs = z.strictObject({
  path: z.string().min(1).describe('Image path relative to the workspace: PNG, JPEG, WebP or GIF (first frame)'),
});

const viewImage = builtinTool({
  name: 'view_image',
  traits: ['read_only'],
  description:
    'Look at an image in the workspace (one you were sent under uploads/, downloaded, or made, e.g. a chart from python). You see it in your next step. Then note in your thoughts what it shows: you will not see it again in later turns unless you look again.',
  args: viewImageArgs,
  describeCall: (args) => args.path,
  run: (args, context) => guarded(() => workspaceImageOutcome(context, args.path, 'viewed by the agent')),
});

/**
 * An image of the workspace shown to the model with the result (view_image, a browser screenshot):
 * recorded as an upload, so the Internal panel shows its thumbnail.
 */
export async function workspaceImageOutcome(context: ToolRunContext, requested: string, note: string): Promise<ToolOutcome> {
  if (!context.sight || 'reason' in context.sight) return errorOutcome(`You cannot be shown images: ${context.sight && 'reason' in context.sight ? context.sight.reason : 'this layer takes no images'}`);
  const read = readFile(context.workspaceDir, requested);
  if ('isError' in read) return read;
  const type = sniff(read.bytes);
  if (!type || type === 'application/pdf') return errorOutcome(`${read.relative} is not a PNG, JPEG, WebP or GIF image${/\.svg$/i.test(read.relative) ? ' (an SVG is text: read it with read_file)' : ''}`);
  const size = await imageSize(read.bytes);
  const hash = sha256Hex(read.bytes);
  const block = await imageBlock(read.bytes, hash, context.sight.provider, `/workspace/${read.relative}`);
  const upload = await insertUpload({
    id: randomUUID(),
    sessionId: context.sessionId,
    name: path.basename(read.relative),
    mimeType: type,
    kind: 'image',
    size: read.bytes.length,
    sha256: hash,
    path: read.relative,
    ...size,
    note,
  });
  return {
    isError: false,
    content: `Here is ${read.relative} (${size.width} × ${size.height}, about ${block.tokens} tokens).\n${fileLine(upload, 'viewed')}`,
    images: [block],
  };
}

const showFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace'),
});

const showFile = builtinTool({
  name: 'show_file',
  traits: ['read_only'],
  description:
    'Show a file from the workspace in the chat, below your reply: an image appears as a picture (a chart you drew), any other file as a download. Use it when your answer is a file.',
  args: showFileArgs,
  describeCall: (args) => args.path,
  run: (args, context) =>
    guarded(async () => {
      const read = readFile(context.workspaceDir, args.path);
      if ('isError' in read) return read;
      const name = path.basename(read.relative);
      const classified = classify({ name, bytes: read.bytes });
      const size = classified.kind === 'image' ? await imageSize(read.bytes) : { width: null, height: null };
      const upload = await insertUpload({
        id: randomUUID(),
        sessionId: context.sessionId,
        name,
        mimeType: classified.mimeType,
        kind: classified.kind,
        size: read.bytes.length,
        sha256: sha256Hex(read.bytes),
        path: read.relative,
        ...size,
        note: classified.note ?? 'shown by the agent',
      });
      return { isError: false, content: `Shown in the chat below your reply:\n${fileLine(upload, 'shown')}` };
    }),
});

export const imageTools = [viewImage, showFile] as const;
