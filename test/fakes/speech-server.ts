// An OpenAI-compatible speech-to-text server on loopback that runs a real engine (issue 76): POST
// /v1/audio/transcriptions takes the multipart upload as OpenAI's API does (file, model,
// response_format json | text | verbose_json, language), decodes any format with Debian's ffmpeg and
// hears it with Debian's pocketsphinx; POST /v1/audio/speech (JSON: model, input, voice,
// response_format mp3 | opus | wav) says the input with espeak-ng, as Kokoro-FastAPI would with its own
// voice. Errors in OpenAI's shape: 400 for a missing field or a file that does not decode, 401 for a
// wrong key. Weak (pocketsphinx): tests assert key words.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SpeechServer {
  url: string;
  /** Each upload as received: its form fields and the file's name, type and size. */
  received: { model: string | null; response_format: string | null; language: string | null; filename: string; type: string; bytes: number; authorization: string | undefined }[];
  /** Each speech request as received (its JSON body). */
  said: { model?: unknown; input?: unknown; voice?: unknown; response_format?: unknown; authorization: string | undefined }[];
  /** How long the engine (ffmpeg and pocketsphinx) took for each recording it heard, in ms. */
  engineMs: number[];
  /** The next request answers this status and message instead. */
  failNext(status: number, message: string): void;
  close(): Promise<void>;
}

function openAIError(response: http.ServerResponse, status: number, message: string, param: string | null = null): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'invalid_request_error', param, code: null } }));
}

/** The words pocketsphinx hears in any audio ffmpeg decodes, and the audio's length in seconds. */
export async function hear(bytes: Uint8Array): Promise<{ text: string; seconds: number }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-speech-'));
  try {
    fs.writeFileSync(path.join(folder, 'in'), bytes);
    const wav = path.join(folder, 'in.wav');
    await run('ffmpeg', ['-loglevel', 'error', '-y', '-i', path.join(folder, 'in'), '-ar', '16000', '-ac', '1', '-f', 'wav', wav]);
    const { stdout } = await run('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], { maxBuffer: 1024 * 1024 });
    return { text: stdout.trim().replace(/\s+/g, ' '), seconds: Math.max(0, (fs.statSync(wav).size - 44) / 32_000) };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const SPEECH_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/ogg', wav: 'audio/wav' };

/** OpenAI's /v1/audio/speech, said by espeak-ng. */
async function say(request: http.IncomingMessage, response: http.ServerResponse, said: SpeechServer['said']): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return openAIError(response, 400, 'We could not parse the JSON body of your request.');
  }
  said.push({ model: body.model, input: body.input, voice: body.voice, response_format: body.response_format, authorization: request.headers.authorization });
  if (typeof body.model !== 'string' || !body.model) return openAIError(response, 400, "you must provide a model parameter", 'model');
  if (typeof body.input !== 'string' || !body.input) return openAIError(response, 400, "[{'type': 'missing', 'loc': ('body', 'input'), 'msg': 'Field required'}]", 'input');
  if (typeof body.voice !== 'string' || !body.voice) return openAIError(response, 400, "[{'type': 'missing', 'loc': ('body', 'voice'), 'msg': 'Field required'}]", 'voice');
  const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
  if (!SPEECH_TYPES[format]) return openAIError(response, 400, `Invalid response_format: ${format}`, 'response_format');
  const audio = await spokenAudio(body.input, format === 'opus' ? 'ogg' : format === 'mp3' ? 'mp3' : 'wav');
  response.writeHead(200, { 'content-type': SPEECH_TYPES[format], 'content-length': String(audio.byteLength) }).end(Buffer.from(audio));
}

export async function startSpeechServer(options: { apiKey?: string } = {}): Promise<SpeechServer> {
  const received: SpeechServer['received'] = [];
  const said: SpeechServer['said'] = [];
  const engineMs: number[] = [];
  let failure: { status: number; message: string } | null = null;
  const server = http.createServer((request, response) => {
    void (async () => {
      // As speaches lists what it can load (its registry of speech models).
      if (request.method === 'GET' && request.url === '/v1/models') return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'speaches-ai/Kokoro-82M-v1.0-ONNX', object: 'model', owned_by: 'speaches-ai' }, { id: 'Systran/faster-whisper-small', object: 'model', owned_by: 'Systran' }] }));
      const known = request.method === 'POST' && (request.url === '/v1/audio/transcriptions' || request.url === '/v1/audio/speech');
      if (!known) return openAIError(response, 404, `Unknown request URL: ${request.method} ${request.url}`);
      if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) return openAIError(response, 401, 'Incorrect API key provided');
      if (failure && request.url === '/v1/audio/speech') {
        const { status, message } = failure;
        failure = null;
        return openAIError(response, status, message);
      }
      if (request.url === '/v1/audio/speech') return say(request, response, said);
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const form = await new Request('http://speech.local/', { method: 'POST', headers: { 'content-type': request.headers['content-type'] ?? '' }, body: Buffer.concat(chunks) })
        .formData()
        .catch(() => null);
      if (!form) return openAIError(response, 400, 'Could not parse multipart form');
      const file = form.get('file');
      const field = (name: string) => (typeof form.get(name) === 'string' ? (form.get(name) as string) : null);
      received.push({ model: field('model'), response_format: field('response_format'), language: field('language'), filename: file instanceof File ? file.name : '', type: file instanceof File ? file.type : '', bytes: file instanceof File ? file.size : 0, authorization: request.headers.authorization });
      if (failure) {
        const { status, message } = failure;
        failure = null;
        return openAIError(response, status, message);
      }
      if (!field('model')) return openAIError(response, 400, "you must provide a model parameter", 'model');
      if (!(file instanceof File)) return openAIError(response, 400, "1 validation error for Request\nbody -> file\n  field required", 'file');
      let heard: { text: string; seconds: number };
      try {
        const started = performance.now();
        heard = await hear(new Uint8Array(await file.arrayBuffer()));
        engineMs.push(performance.now() - started);
      } catch {
        return openAIError(response, 400, 'Invalid file format. Supported formats: [flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm]', 'file');
      }
      const format = field('response_format') ?? 'json';
      if (format === 'text') return response.writeHead(200, { 'content-type': 'text/plain' }).end(heard.text);
      const body = format === 'verbose_json' ? { task: 'transcribe', language: field('language') ?? 'english', duration: heard.seconds, text: heard.text, segments: [] } : { text: heard.text };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    })().catch((error: unknown) => openAIError(response, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received,
    said,
    engineMs,
    failNext: (status, message) => (failure = { status, message }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Real speech to test with: espeak-ng says the words; ffmpeg makes it `format` (ogg: opus, as a Telegram voice note). */
export async function spokenAudio(words: string, format: 'wav' | 'ogg' | 'webm' | 'mp3' = 'wav'): Promise<Uint8Array> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-espeak-'));
  try {
    const wav = path.join(folder, 'said.wav');
    await run('espeak-ng', ['-v', 'en-us', '-s', '140', '-w', wav, words]);
    if (format === 'wav') return new Uint8Array(fs.readFileSync(wav));
    const out = path.join(folder, `said.${format}`);
    await run('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav, ...(format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '48k'] : ['-c:a', 'libopus', '-b:a', '24k']), out]);
    return new Uint8Array(fs.readFileSync(out));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
