// Push-to-talk in Chromium (issue 76 §3) with a fake microphone playing real speech (espeak-ng's
// WAV through --use-file-for-fake-audio-capture): Settings › Voice points at a loopback speech
// server running pocketsphinx and *Test* answers; on the session page 🎤 Talk records, the words come
// back into the composer to edit, the recording is attached, and once sent the message shows it as
// spoken with a player — and the agent answers the words, which *Read aloud* hands to the browser's voices.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { spokenAudio, startSpeechServer, type SpeechServer } from '../test/fakes/speech-server';
import { SessionPage } from './support/pages';
import { saveScreenshot } from './support/screenshots';

let speech: SpeechServer;
let microphone: Browser;
const wav = path.join(os.tmpdir(), `agentcsd-e2e-speech-${process.pid}.wav`);

test.beforeAll(async () => {
  speech = await startSpeechServer();
  // A pause first and last: the fake microphone loops the file, and the recording catches it whole.
  fs.writeFileSync(wav, await spokenAudio(', , , what is the weather like today , , , , ,', 'wav'));
  const launch = test.info().project.use.launchOptions;
  microphone = await chromium.launch({
    ...(launch?.executablePath && { executablePath: launch.executablePath }),
    args: [...(launch?.args ?? []), '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`],
  });
});

test.afterAll(async ({ request }) => {
  await request.put('/api/voice-settings', { data: { transcription: null, speech: null } });
  await microphone?.close();
  await speech?.close();
  fs.rmSync(wav, { force: true });
});

test('Settings › Voice, then push-to-talk: recorded, heard, edited, sent as spoken, answered', async ({ request, baseURL }) => {
  test.setTimeout(90_000);
  const context = await microphone.newContext({ baseURL, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();

  await page.goto('/settings/voice');
  const form = page.getByRole('form', { name: 'Speech server' });
  await form.getByLabel('Server address (…/v1)').fill(speech.url);
  await form.getByLabel('Model').fill('whisper-1');
  await form.getByRole('button', { name: 'Test' }).click();
  await expect(form.getByRole('status')).toContainText(/The server answered in \d+ ms/);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toContainText('Saved');
  await saveScreenshot(page, 'settings-voice');

  const created = await request.post('/api/sessions', { data: { persona: 'iris', name: 'Spoken to' } });
  expect(created.status()).toBe(201);
  const { session } = (await created.json()) as { session: { id: string } };
  await page.goto(`/sessions/${session.id}`);
  const chat = new SessionPage(page);
  await chat.chat.getByRole('button', { name: '🎤 Talk' }).click();
  const stop = chat.chat.getByRole('button', { name: /Stop \(\d+ s\)/ });
  await expect(stop).toBeVisible();
  await expect(stop).toHaveText(/Stop \([4-9] s\)/, { timeout: 15_000 });
  await stop.click();
  // The words come back to edit; the recording is attached beside them.
  await expect(chat.input).toHaveValue(/weather/, { timeout: 20_000 });
  await expect(chat.chat.getByLabel('Files to send')).toContainText('recording');
  await chat.input.fill(`${await chat.input.inputValue()} please`);
  await page.keyboard.press('Enter');

  const mine = chat.messages.filter({ hasText: 'please' });
  await expect(mine.getByTestId('file-audio')).toContainText('spoken');
  await expect(mine.getByLabel(/^Recording /)).toBeVisible();
  await expect(chat.messages.filter({ hasText: /You said: .*weather.*please/ })).toBeVisible({ timeout: 30_000 });
  await saveScreenshot(page, 'session-push-to-talk');

  // *Send when heard* (kept by this browser): the words go as soon as they are heard, the recording with them.
  await chat.chat.getByLabel('Send when heard').check();
  await page.reload();
  await expect(chat.chat.getByLabel('Send when heard')).toBeChecked();
  const spokenBefore = await chat.messages.getByTestId('file-audio').count();
  const answeredBefore = await chat.messages.filter({ hasText: /You said:/ }).count();
  await chat.chat.getByRole('button', { name: '🎤 Talk' }).click();
  await expect(stop).toHaveText(/Stop \([4-9] s\)/, { timeout: 15_000 });
  await stop.click();
  await expect(chat.messages.getByTestId('file-audio')).toHaveCount(spokenBefore + 1, { timeout: 20_000 });
  await expect(chat.input).toHaveValue('');
  // Answered, and with the words as heard this time (a recording may catch the looping file
  // mid-word, so not necessarily "weather" again): the scripted mind says them back.
  await expect(chat.messages.filter({ hasText: /You said:/ })).toHaveCount(answeredBefore + 1, { timeout: 30_000 });
  const history = (await (await request.get(`/api/sessions/${session.id}/history?layer=external`)).json()) as { messages: { tag: string; content: string }[] };
  const heard = history.messages.filter((message) => message.tag === 'ED_user').at(-1)?.content.match(/[A-Za-z]+/)?.[0];
  expect(heard, 'the second recording was heard as words').toBeTruthy();
  expect(history.messages.filter((message) => message.tag === 'ED_agent').at(-1)?.content).toContain(heard);
  await chat.chat.getByLabel('Send when heard').uncheck();

  // Read aloud with the browser's own voices: what is handed to speechSynthesis is the reply's words.
  await page.evaluate(() => {
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    window.speechSynthesis.speak = (utterance: SpeechSynthesisUtterance) => void said.push(utterance.text);
  });
  const reply = chat.messages.filter({ hasText: /You said: .*weather.*please/ });
  await reply.getByRole('button', { name: 'Read aloud' }).click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([expect.stringMatching(/^You said: .*weather.*please$/)]);
  expect(speech.received.at(-1)).toMatchObject({ model: 'whisper-1', type: expect.stringMatching(/^audio\/(webm|ogg)/) });

  // A voice on the server (espeak-ng here): Test plays a sample, Save keeps it, and Read aloud is
  // then a player with the reply said on the server — the browser's voices are not used.
  await page.goto('/settings/voice');
  const voice = page.getByRole('form', { name: 'Voice for replies' });
  await voice.getByLabel(/espeak-ng on this machine/).check();
  await voice.getByRole('button', { name: 'Test voice' }).click();
  await expect(voice.getByRole('status')).toContainText(/Said in \d+ ms/, { timeout: 20_000 });
  await expect(voice.getByLabel('The voice, saying a sample sentence')).toBeVisible();
  await voice.getByRole('button', { name: 'Save voice' }).click();
  await expect(voice.getByRole('status')).toContainText('Saved');
  await saveScreenshot(page, 'settings-voice-replies');
  const speechCalls = async () => ((await (await request.get(`/api/sessions/${session.id}`)).json()) as { usage: Record<string, { calls: number }> }).usage.speech?.calls ?? 0;
  const heardOnly = await speechCalls(); // the two push-to-talk recordings, heard
  await page.goto(`/sessions/${session.id}`);
  await page.evaluate(() => {
    (window as unknown as { said: string[] }).said = [];
    window.speechSynthesis.speak = (utterance: SpeechSynthesisUtterance) => void (window as unknown as { said: string[] }).said.push(utterance.text);
  });
  await chat.messages.filter({ hasText: /You said: .*weather.*please/ }).getByRole('button', { name: 'Read aloud' }).click();
  const player = chat.messages.filter({ hasText: /You said: .*weather.*please/ }).getByLabel('The reply, read aloud');
  await expect(player).toBeVisible({ timeout: 20_000 });
  await expect.poll(() => player.evaluate((audio: HTMLAudioElement) => audio.readyState), { timeout: 10_000 }).toBeGreaterThan(0); // the browser decoded it
  expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([]);
  // Said on the server, it is counted: the session's usage has the speech calls (espeak-ng is free).
  expect(heardOnly).toBe(2);
  await expect.poll(speechCalls).toBe(3);
  await request.delete(`/api/sessions/${session.id}`);
  await context.close();
});
