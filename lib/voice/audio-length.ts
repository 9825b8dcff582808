// How long a recording is, for what a minute of transcription costs (issue 76 §5): exact from a
// WAV's header and an Ogg stream's last granule position (Telegram's and WhatsApp's voice notes,
// Opus at 48 kHz); other containers (a browser's WebM, MP3, MP4) by their size at a bitrate —
// 8 kbit/s for the most a call could cost (no voice codec is smaller), 16 kbit/s as it likely is.

export interface AudioLength {
  seconds: number;
  /** Read from the file itself; otherwise estimated from its size. */
  exact: boolean;
}

/** The recording's length: exact where its container says it, else estimated (`worst` assumes the smallest bitrate). */
export function audioLength(bytes: Uint8Array, options: { worst?: boolean } = {}): AudioLength {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const exact = wavSeconds(buffer) ?? oggSeconds(buffer);
  if (exact !== null) return { seconds: exact, exact: true };
  return { seconds: buffer.byteLength / (options.worst ? 1_000 : 2_000), exact: false };
}

function wavSeconds(buffer: Buffer): number | null {
  if (buffer.byteLength < 12 || buffer.toString('latin1', 0, 4) !== 'RIFF' || buffer.toString('latin1', 8, 12) !== 'WAVE') return null;
  let byteRate = 0;
  for (let at = 12; at + 8 <= buffer.byteLength; ) {
    const id = buffer.toString('latin1', at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= buffer.byteLength) byteRate = buffer.readUInt32LE(at + 16);
    // A streamed WAV (espeak-ng's --stdout) says 0xFFFFFFFF: the rest of the file is its data.
    if (id === 'data') return byteRate > 0 ? Math.min(size, buffer.byteLength - at - 8) / byteRate : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

function oggSeconds(buffer: Buffer): number | null {
  if (buffer.byteLength < 28 || buffer.toString('latin1', 0, 4) !== 'OggS') return null;
  const head = buffer.subarray(28, 64);
  const rate = head.toString('latin1', 0, 8) === 'OpusHead' ? 48_000 : head.toString('latin1', 1, 7) === 'vorbis' ? head.readUInt32LE(12) : 0;
  if (!rate) return null;
  const last = buffer.lastIndexOf('OggS', buffer.byteLength - 27, 'latin1');
  if (last < 0 || last + 14 > buffer.byteLength) return null;
  const granule = Number(buffer.readBigUInt64LE(last + 6));
  return granule > 0 && Number.isFinite(granule) ? granule / rate : null;
}
