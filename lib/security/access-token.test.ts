// The made access token survives a restart: kept in the data folder, for this user alone; a file
// holding anything but a token is replaced by a new one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keptAccessToken } from './access-token';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const folder = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-token-'));
  made.push(dir);
  return path.join(dir, 'data');
};

describe('the kept access token', () => {
  it('is made once, written for this user alone, and the same at the next start', () => {
    const dataDir = folder();
    const first = keptAccessToken(dataDir);
    expect(first).toMatch(/^[0-9a-f]{48}$/);
    expect(fs.statSync(path.join(dataDir, 'access-token')).mode & 0o777).toBe(0o600);
    expect(keptAccessToken(dataDir)).toBe(first);
  });

  it('a file made readable by others is made private again; one holding anything else is replaced', () => {
    const dataDir = folder();
    const first = keptAccessToken(dataDir);
    fs.chmodSync(path.join(dataDir, 'access-token'), 0o644);
    expect(keptAccessToken(dataDir)).toBe(first);
    expect(fs.statSync(path.join(dataDir, 'access-token')).mode & 0o777).toBe(0o600);
    fs.writeFileSync(path.join(dataDir, 'access-token'), 'letmein');
    const second = keptAccessToken(dataDir);
    expect(second).not.toBe('letmein');
    expect(second).toMatch(/^[0-9a-f]{48}$/);
  });
});
