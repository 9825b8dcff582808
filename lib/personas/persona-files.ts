// Persona Core files in personas/. Only the persona editor's routes call the writers; every path is
// resolved inside the folder, symlinks are refused, and writes are atomic (temp, fsync, rename,
// fsync of the folder) so a crash never leaves a half-written persona.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { appPaths } from '@/lib/config/env';
import { personaNameSchema } from './persona-name';
import { sha256Hex } from '@/lib/security/digest';

const personaErrorBrand = Symbol.for('agentcsd.PersonaError');

export class PersonaError extends Error {
  readonly [personaErrorBrand] = true;

  /** instanceof fails across the server.ts / Next bundle boundary (two module copies): use this. */
  static is(error: unknown): error is PersonaError {
    return typeof error === 'object' && error !== null && personaErrorBrand in error;
  }

  constructor(
    readonly kind: 'not_found' | 'already_exists' | 'invalid_name' | 'not_a_file',
    message: string,
  ) {
    super(message);
    this.name = 'PersonaError';
  }
}

export interface PersonaSummary {
  name: string;
  size: number;
  updatedAt: Date;
}

export interface PersonaFile extends PersonaSummary {
  content: string;
  hash: string;
}

function personasDir(): string {
  return appPaths().personasDir;
}

/** The absolute path of a persona inside the folder, or a PersonaError. */
export function personaPath(name: string): string {
  const parsed = personaNameSchema.safeParse(name);
  if (!parsed.success) throw new PersonaError('invalid_name', parsed.error.issues[0]?.message ?? 'invalid persona name');
  const dir = path.resolve(personasDir());
  const target = path.resolve(dir, `${parsed.data}.md`);
  if (path.dirname(target) !== dir) throw new PersonaError('invalid_name', 'persona name resolves outside personas/');
  return target;
}

function lstatRegularFile(target: string, name: string): fs.Stats {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new PersonaError('not_found', `Persona "${name}" does not exist`);
    throw error;
  }
  if (!stats.isFile()) throw new PersonaError('not_a_file', `Persona "${name}" is not a regular file (symlinks are refused)`);
  return stats;
}

export function hashPersona(content: Buffer | string): string {
  return sha256Hex(content);
}

export function listPersonas(): PersonaSummary[] {
  const dir = personasDir();
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => entry.name.slice(0, -3))
    .filter((name) => personaNameSchema.safeParse(name).success)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => {
      const stats = fs.statSync(path.join(dir, `${name}.md`));
      return { name, size: stats.size, updatedAt: stats.mtime };
    });
}

/** Whether a persona of that name exists as a regular file (a hostile name is simply not one). */
export function personaExists(name: string): boolean {
  if (!personaNameSchema.safeParse(name).success) return false;
  try {
    return fs.lstatSync(path.join(personasDir(), `${name}.md`)).isFile();
  } catch {
    return false;
  }
}

/** The persona's exact bytes (for byte-exact snapshots) and their hash. */
export function readPersonaBytes(name: string): { bytes: Buffer; hash: string } {
  const target = personaPath(name);
  lstatRegularFile(target, name);
  const bytes = fs.readFileSync(target);
  return { bytes, hash: hashPersona(bytes) };
}

export function readPersona(name: string): PersonaFile {
  const target = personaPath(name);
  const stats = lstatRegularFile(target, name);
  const bytes = fs.readFileSync(target);
  return { name, size: stats.size, updatedAt: stats.mtime, content: bytes.toString('utf8'), hash: hashPersona(bytes) };
}

function writeAtomically(target: string, content: string): void {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = fs.openSync(temp, 'wx', 0o644);
  try {
    fs.writeSync(handle, content);
    fs.fsyncSync(handle);
  } catch (error) {
    fs.closeSync(handle);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(handle);
  try {
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  const dirHandle = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dirHandle);
  } finally {
    fs.closeSync(dirHandle);
  }
}

export function createPersona(input: { name: string; content: string }): PersonaFile {
  const target = personaPath(input.name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(target) || isDanglingLink(target)) {
    throw new PersonaError('already_exists', `Persona "${input.name}" already exists`);
  }
  writeAtomically(target, input.content);
  return readPersona(input.name);
}

export function updatePersona(input: { name: string; content: string }): PersonaFile {
  const target = personaPath(input.name);
  lstatRegularFile(target, input.name);
  writeAtomically(target, input.content);
  return readPersona(input.name);
}

export function deletePersona(input: { name: string }): void {
  const target = personaPath(input.name);
  lstatRegularFile(target, input.name);
  fs.unlinkSync(target);
}

function isDanglingLink(target: string): boolean {
  try {
    return fs.lstatSync(target).isSymbolicLink();
  } catch {
    return false;
  }
}
