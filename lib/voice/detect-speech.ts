// A speech server on this machine, found (issue 76 §1), as the home page's models card finds Ollama:
// each address of AGENTCSD_SPEECH_URLS (speaches' port 8000, whisper.cpp's server's 8080) asked for
// its models — a speech-to-text one among them is what Settings › Voice offers to use — or, for
// whisper.cpp's server, which lists none, its own page. Loopback only, three seconds each; none throws.
import { normaliseBaseURL } from '@/lib/backends/openai-compatible-backend';
import { readEnv } from '@/lib/config/env';

export interface FoundSpeechServer {
  name: string;
  endpoint: string;
  model: string;
}

const SPEECH_MODEL = /whisper|parakeet|moonshine|canary/i;

async function probe(endpoint: string): Promise<FoundSpeechServer | null> {
  const base = normaliseBaseURL(endpoint);
  try {
    const response = await fetch(`${base}/models`, { signal: AbortSignal.timeout(3_000) });
    if (response.ok) {
      const listed = ((await response.json()) as { data?: { id?: unknown }[] }).data ?? [];
      const model = listed.map((entry) => String(entry.id ?? '')).find((id) => SPEECH_MODEL.test(id));
      if (model) return { name: model.includes('/') ? 'speaches' : 'a speech server', endpoint: base, model };
      return null;
    }
  } catch {
    // nothing listed here: whisper.cpp's server may still be
  }
  try {
    const page = await fetch(new URL('/', base), { signal: AbortSignal.timeout(3_000) });
    if (page.ok && /whisper\.cpp/i.test((await page.text()).slice(0, 4096))) return { name: 'whisper.cpp server', endpoint: base, model: 'whisper-1' };
  } catch {
    // nothing here
  }
  return null;
}

export async function detectSpeechServers(): Promise<FoundSpeechServer[]> {
  const endpoints = readEnv()
    .AGENTCSD_SPEECH_URLS.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return (await Promise.all(endpoints.map(probe))).filter((found): found is FoundSpeechServer => found !== null);
}
