import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '@/test/support/property';
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
  '%2e%2e%2f',
  '..%2f..%2fetc%2fpasswd',
  '....//',
  '.../',
  '..;/',
  '/',
  '\\',
  '\\\\server\\share',
  '//server/share',
  '~',
  '~/x',
  '~root',
  '$HOME',
  '${HOME}',
  '`id`',
  '$(id)',
  'a;rm -rf',
  'a|b',
  'a>b',
  'a<b',
  'a*',
  'a?',
  'a:b',
  'a"b',
  "a'b",
  'file:///etc/passwd',
  'personas/../x',
  './x',
  'x/.',
  'x/..',
  '\u0000',
  'a\u0000.md',
  '..\u0000',
  '\u2024\u2024',
  '\uff0e\uff0e',
  '\uff0f',
  '\u2215',
  '\u29f8',
  'a\u200bb',
  '\ufeffa',
  'a\u00a0b',
  'a\tb',
  'a\rb',
  'A'.repeat(255),
  'aux',
  'Com1',
  'prn',
  'lpt1',
  '-',
  '_',
  '_x',
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

describe('persona names, generated', () => {
  const outsideFingerprint = () => folderFingerprint(dirs.root).split('\n').filter((line) => !line.startsWith('personas')).join('\n');
  const pieces = ['..', '.', '/', '\\', '\u0000', '%2e', '%2f', '~', 'C:', '\u202e', '\uff0e', '\u2024', ' ', '\n', 'etc', 'passwd', 'a', 'ｃｏｎ', '\u0301', '.md', ':', '*'];

  it('no traversal built from path pieces escapes personas/ (200 names)', () => {
    const before = outsideFingerprint();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 8 }).map((parts) => parts.join('')), (name) => {
        tryEveryOperation(name);
      }),
      propertyRuns(200),
    );
    expect(outsideFingerprint()).toBe(before);
  });

  it('no arbitrary string escapes personas/ (300 names, any code points)', () => {
    const before = outsideFingerprint();
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (name) => tryEveryOperation(name)), propertyRuns(300));
    expect(outsideFingerprint()).toBe(before);
  });

  /** Create, read, update, delete: each either refuses with a PersonaError or stays inside. */
  function tryEveryOperation(name: string): void {
    let target: string | undefined;
    try {
      target = personaPath(name);
    } catch (error) {
      expect(PersonaError.is(error)).toBe(true);
    }
    if (target !== undefined) {
      expect(path.dirname(target)).toBe(path.resolve(dirs.personasDir));
      expect(path.basename(target)).toBe(`${name}.md`);
    }
    for (const operation of [
      () => createPersona({ name, content: 'generated' }),
      () => readPersona(name),
      () => updatePersona({ name, content: 'generated 2' }),
      () => deletePersona({ name }),
    ]) {
      try {
        operation();
      } catch (error) {
        expect(PersonaError.is(error), String(error)).toBe(true);
      }
    }
  }
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

  it('refuses a link to a folder and a dangling link; updating a hard link never writes through it', () => {
    fs.symlinkSync(dirs.root, path.join(dirs.personasDir, 'dirlink.md'));
    fs.symlinkSync(path.join(dirs.root, 'nowhere.md'), path.join(dirs.personasDir, 'dangling.md'));
    for (const name of ['dirlink', 'dangling']) {
      expect(() => readPersona(name)).toThrow(PersonaError);
      expect(() => updatePersona({ name, content: 'pwned' })).toThrow(PersonaError);
      expect(() => createPersona({ name, content: 'pwned' })).toThrow(/already exists/);
    }
    expect(fs.existsSync(path.join(dirs.root, 'nowhere.md'))).toBe(false);

    const outside = path.join(dirs.root, 'hard-outside.md');
    fs.writeFileSync(outside, 'outside');
    fs.linkSync(outside, path.join(dirs.personasDir, 'hard.md'));
    updatePersona({ name: 'hard', content: 'edited' });
    expect(readPersona('hard').content).toBe('edited');
    expect(fs.readFileSync(outside, 'utf8')).toBe('outside'); // the rename replaced the link, not the file
  });
});
