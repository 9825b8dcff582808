// The fake OpenAI-compatible server (the scripted mind) in a process of its own, so its work does
// not share the event loop of the processes measured.
import { spawn } from 'node:child_process';

export async function startFakeProcess(port: number, chunkDelayMs: number): Promise<{ stop(): Promise<unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fakes/run-fake-openai-server.ts', String(port)], {
    env: { ...process.env, FAKE_LLM_CHUNK_DELAY_MS: String(chunkDelayMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('fake OpenAI-compatible server on') && resolve());
    child.on('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
