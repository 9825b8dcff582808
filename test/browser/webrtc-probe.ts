// Run inside a network namespace the test made (webrtc-netns.test.ts): a UDP listener on the
// namespace's veth address stands for any host a page could reach without the proxy; a page asks
// WebRTC to gather candidates against it (a STUN server there). Prints what arrived, as JSON.
// `app`: the app's own browser (the pool, its launcher's flags, its egress proxy). `control`: a
// plain Chromium without the app's WebRTC policy, to show the listener hears a leak when there is
// one; `control-with-policy`: the same with the policy alone added.
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserPool } from '@/lib/browser/browser-pool';

const LISTENER = { address: process.env.PROBE_LISTENER ?? '10.99.0.2', port: 3478 };
const executablePath = process.env.AGENTCSD_CHROMIUM_PATH ?? '/usr/bin/chromium';

const gather = async (stun: string) => {
  const connection = new RTCPeerConnection({ iceServers: [{ urls: stun }] });
  const candidates: string[] = [];
  connection.onicecandidate = (event) => {
    if (event.candidate) candidates.push(event.candidate.candidate);
  };
  connection.createDataChannel('probe');
  await connection.setLocalDescription(await connection.createOffer());
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 4_000);
    connection.onicegatheringstatechange = () => connection.iceGatheringState === 'complete' && (clearTimeout(timer), resolve());
  });
  connection.close();
  return candidates;
};

async function main(): Promise<void> {
  const mode = process.argv[2];
  const socket = dgram.createSocket('udp4');
  let packets = 0;
  socket.on('message', () => packets++);
  await new Promise<void>((resolve) => socket.bind(LISTENER.port, LISTENER.address, resolve));
  const stun = `stun:${LISTENER.address}:${LISTENER.port}`;
  let candidates: string[];
  let close: () => Promise<void>;
  if (mode === 'app') {
    const pool = new BrowserPool({ executablePath, browserDir: fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-probe-')), maxContexts: 1, idleMs: 60_000 });
    const browser = await pool.session('probe', { allowedHosts: new Set(), allowPublic: true });
    candidates = await (await browser.page()).evaluate(gather, stun);
    close = () => pool.stop();
  } else {
    const { chromium } = await import('playwright-core');
    // The control runs as root in the namespace, so without Chromium's sandbox; the policy alone is what differs.
    const plain = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', ...(mode === 'control-with-policy' ? ['--webrtc-ip-handling-policy=disable_non_proxied_udp'] : [])] });
    candidates = await (await plain.newPage()).evaluate(gather, stun);
    close = () => plain.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await close();
  socket.close();
  console.log(JSON.stringify({ mode, packets, candidates }));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
