// A recording is audio by its bytes (issue 76 §2): real Ogg/Opus, WebM and WAV made by espeak-ng and
// ffmpeg are kept as audio with the right extension; a file named .ogg that holds HTML is not.
import { describe, expect, it } from 'vitest';
import { classify } from '@/lib/attachments/file-kind';
import { spokenAudio } from '@/test/fakes/speech-server';

describe('audio files', () => {
  it('are known by their container, whatever they were called', async () => {
    expect(classify({ name: 'voice', claimedType: 'audio/ogg', bytes: await spokenAudio('hello', 'ogg') })).toEqual({ kind: 'audio', mimeType: 'audio/ogg', name: 'voice.ogg' });
    expect(classify({ name: 'voice.opus', claimedType: 'audio/opus', bytes: await spokenAudio('hello', 'ogg') })).toMatchObject({ kind: 'audio', name: 'voice.opus' });
    expect(classify({ name: 'recording.bin', claimedType: 'application/octet-stream', bytes: await spokenAudio('hello', 'webm') })).toEqual({ kind: 'audio', mimeType: 'audio/webm', name: 'recording.webm' });
    expect(classify({ name: 'said.wav', claimedType: null, bytes: await spokenAudio('hello', 'wav') })).toEqual({ kind: 'audio', mimeType: 'audio/wav', name: 'said.wav' });
  });

  it('a name or a claimed type makes nothing audio', () => {
    expect(classify({ name: 'voice.ogg', claimedType: 'audio/ogg', bytes: Buffer.from('<html><script>alert(1)</script></html>') })).toMatchObject({ kind: 'text', mimeType: 'text/plain' });
  });
});
