// Red-team round 4, §6: a page's WebRTC must not reach an address around the egress proxy. Proven in
// a network namespace the test makes (unshare, as root: a veth pair on 10.99.0.0/24, nothing of the
// host's interfaces): a UDP listener there stands for any host; a page gathers WebRTC candidates
// against it as a STUN server. A plain Chromium sends it packets (the control: the listener hears a
// leak); the app's browser — its launcher's WebRTC policy, its proxy — sends none.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const NAMESPACE_SETUP = [
  'ip link set lo up',
  'ip link add v0 type veth peer name v1',
  'ip addr add 10.99.0.1/24 dev v0',
  'ip addr add 10.99.0.2/24 dev v1',
  'ip link set v0 up',
  'ip link set v1 up',
].join(' && ');

function probe(mode: 'app' | 'control' | 'control-with-policy'): { packets: number } {
  const script = path.resolve('test/browser/webrtc-probe.ts');
  const run = spawnSync('unshare', ['--net', '--', 'sh', '-c', `${NAMESPACE_SETUP} && exec "$0" --import tsx "$1" "$2"`, process.execPath, script, mode], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PROBE_LISTENER: '10.99.0.2' } });
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || !line.startsWith('{')) throw new Error(`the probe (${mode}) failed (${run.status}): ${run.stderr.slice(-1_500)}`);
  return JSON.parse(line) as { packets: number };
}

describe("a page's WebRTC", () => {
  it.runIf(process.getuid?.() === 0)('reaches nothing around the proxy from the app\'s browser; a plain Chromium in the same namespace does', () => {
    expect(probe('control').packets).toBeGreaterThan(0); // the listener hears a leak when there is one
    expect(probe('control-with-policy').packets).toBe(0); // the policy alone stops it
    expect(probe('app').packets).toBe(0); // and the app's browser has it
  }, 120_000);
});
