// What an attached file is (issue 33, ARCHITECTURE §19), decided by its bytes, never by the name or
// the MIME type a browser claimed: a file that says it is a PNG but is HTML is HTML. Images are
// PNG, JPEG, WebP and GIF; an SVG is text with markup (it can carry script), never an image; a PDF
// is a document; Ogg, WebM, WAV, MP3 and MP4 audio (voice notes, recordings: issue 76) is audio.
// The name is made safe to show and to store: no path, no control characters.
export type FileKind = 'image' | 'pdf' | 'audio' | 'text' | 'binary';

export interface Classified {
  kind: FileKind;
  /** The type the bytes say, e.g. image/png; text/plain for text; application/octet-stream otherwise. */
  mimeType: string;
  name: string;
  /** Why the claimed type was not taken (a lie, or an SVG offered as an image), for the user. */
  note?: string;
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) => signature.every((byte, index) => bytes[offset + index] === byte);

/** The image or document type of the bytes, by their signature; null when none matches. */
export function sniff(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'application/pdf' | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38, 0x37, 0x61]) || startsWith(bytes, [0x47, 0x49, 0x46, 0x38, 0x39, 0x61])) return 'image/gif';
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  return null;
}

export type AudioType = 'audio/ogg' | 'audio/webm' | 'audio/wav' | 'audio/mpeg' | 'audio/mp4';

/** The audio type of the bytes, by their container's signature; null when none matches. */
export function sniffAudio(bytes: Uint8Array): AudioType | null {
  if (startsWith(bytes, [0x4f, 0x67, 0x67, 0x53])) return 'audio/ogg'; // OggS (opus, vorbis)
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'audio/webm'; // EBML (a browser's MediaRecorder)
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x41, 0x56, 0x45], 8)) return 'audio/wav';
  if (startsWith(bytes, [0x49, 0x44, 0x33]) || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)) return 'audio/mpeg';
  if (startsWith(bytes, [0x66, 0x74, 0x79, 0x70], 4) && /^(M4A |M4B |mp42|isom|3gp)/.test(String.fromCharCode(...bytes.subarray(8, 12)))) return 'audio/mp4';
  return null;
}

/** Text when the first 8 KiB decode as UTF-8 without NUL bytes or stray control characters. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? head.subarray(0, lastCompleteChar(head)) : head);
    return !/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f]/.test(text);
  } catch {
    return false;
  }
}

/** Where the last whole UTF-8 character of a cut buffer ends. */
function lastCompleteChar(bytes: Uint8Array): number {
  let end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte
    const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (width > back) end -= back;
    break;
  }
  return end;
}

const MAX_NAME = 120;

/**
 * A name safe to show and to keep: the last path segment only (either separator), control and
 * bidirectional-override characters gone, leading dots gone (no hidden files), at most 120
 * characters keeping the extension; "file" when nothing is left.
 */
export function safeFileName(given: string): string {
  const last = given.split(/[\\/]/).pop() ?? '';
  let name = last
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^[.\s]+/, '')
    .trim();
  if (name.length > MAX_NAME) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
    name = name.slice(0, MAX_NAME - extension.length) + extension;
  }
  return name || 'file';
}

const extensionFor: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'application/pdf': '.pdf',
  'audio/ogg': '.ogg',
  'audio/webm': '.webm',
  'audio/wav': '.wav',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
};

/** What the upload is, by its bytes; the claimed type only explains a note. */
export function classify(input: { name: string; claimedType?: string | null; bytes: Uint8Array }): Classified {
  const name = safeFileName(input.name);
  const claimed = (input.claimedType ?? '').toLowerCase().split(';')[0]!.trim();
  const sniffed = sniff(input.bytes);
  if (sniffed) {
    const kind: FileKind = sniffed === 'application/pdf' ? 'pdf' : 'image';
    const lie = claimed && claimed !== 'application/octet-stream' && claimed !== sniffed && !(claimed === 'image/jpg' && sniffed === 'image/jpeg');
    return { kind, mimeType: sniffed, name: withExtension(name, sniffed), ...(lie && { note: `sent as ${claimed}, but the file is ${sniffed}` }) };
  }
  const audio = sniffAudio(input.bytes);
  if (audio) return { kind: 'audio', mimeType: audio, name: withExtension(name, audio) };
  const text = looksLikeText(input.bytes);
  const svg = text && /<svg[\s>]/i.test(new TextDecoder().decode(input.bytes.subarray(0, 4096)));
  const claimedImage = claimed.startsWith('image/');
  const note = svg ? 'an SVG is kept as a file, not shown as an image (it can carry script)' : claimedImage ? `sent as ${claimed}, but the file is not an image` : undefined;
  return { kind: text ? 'text' : 'binary', mimeType: text ? 'text/plain' : 'application/octet-stream', name, ...(note && { note }) };
}

/** A name whose extension says what the bytes are (so a polyglot is not opened as something else). */
function withExtension(name: string, mimeType: string): string {
  const wanted = extensionFor[mimeType]!;
  const lower = name.toLowerCase();
  if (lower.endsWith(wanted) || (wanted === '.jpg' && lower.endsWith('.jpeg')) || (wanted === '.ogg' && /\.(oga|opus)$/.test(lower)) || (wanted === '.mp3' && lower.endsWith('.mpga'))) return name;
  return safeFileName(`${name.replace(/\.[A-Za-z0-9]{1,8}$/, '')}${wanted}`);
}
