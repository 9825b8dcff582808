import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderFingerprint, useTempAppDirs } from '@/test/support/temp-app-dirs';
import { createPersona, deletePersona, listPersonas, PersonaError, personaPath, readPersona, updatePersona } from './persona-files';
import { personaNameSchema } from './persona-name';

const dirs = useTempAppDirs({ personas: { existing: '# Existing\n' } });

const hostileNames = [
  '',
  '.',
  '..',
  '../x',
  '..\\x',
  'a/b',
  '/etc/passwd',
  'C:\\Windows',
  'a\u0000b',
  'con',
  'NUL',
  'com1',
  'LPT9',
  '.hidden',
  '-dash-first',
  'a b',
  'a.md',
  'x'.repeat(65),
  'caf\u00e9',
  'e\u0301',
  '\u202etxt.dm',
  'ａｂｃ',
  'name\n',
  ' name',
  '%2e%2e',
];

describe('persona names', () => {
  it.each(hostileNames)('refuses %j', (name) => {
    expect(personaNameSchema.safeParse(name).success).toBe(false);
    expect(() => personaPath(name)).toThrow(PersonaError);
  });

  it.each(['iris', 'Sage_2', 'a', 'night-owl', 'x'.repeat(64)])('accepts %j inside personas/', (name) => {
    expect(path.dirname(personaPath(name))).toBe(path.resolve(dirs.personasDir));
  });
});

describe('persona files', () => {
  it('creates atomically, lists, reads and hashes', () => {
    const created = createPersona({ name: 'fresh', content: '# Fresh\nhello' });
    expect(created.content).toBe('# Fresh\nhello');
    expect(created.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(listPersonas().map((persona) => persona.name)).toEqual(['existing', 'fresh']);
    // No temp file is left behind.
    expect(fs.readdirSync(dirs.personasDir).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a duplicate without touching the existing file', () => {
    const before = folderFingerprint(dirs.personasDir);
    expect(() => createPersona({ name: 'existing', content: 'overwritten?' })).toThrow(/already exists/);
    expect(folderFingerprint(dirs.personasDir)).toBe(before);
  });

  it('updates in place and deletes', () => {
    updatePersona({ name: 'fresh', content: 'v2' });
    expect(readPersona('fresh').content).toBe('v2');
    deletePersona({ name: 'fresh' });
    expect(() => readPersona('fresh')).toThrow(/does not exist/);
    expect(() => updatePersona({ name: 'fresh', content: 'v3' })).toThrow(/does not exist/);
  });

  it('refuses symlinks that lead outside personas/', () => {
    const outside = path.join(dirs.root, 'secret.md');
    fs.writeFileSync(outside, 'secret');
    fs.symlinkSync(outside, path.join(dirs.personasDir, 'link.md'));
    expect(() => readPersona('link')).toThrow(/symlinks are refused/);
    expect(() => updatePersona({ name: 'link', content: 'pwned' })).toThrow(/symlinks are refused/);
    expect(() => createPersona({ name: 'link', content: 'pwned' })).toThrow(/already exists/);
    expect(fs.readFileSync(outside, 'utf8')).toBe('secret');
    expect(listPersonas().map((persona) => persona.name)).not.toContain('link');
  });
});
