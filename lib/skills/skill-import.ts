// Installing and removing skills (issue 34, the Skills page): a .zip or a folder's files become a
// skill folder only after every check a listed skill passes — unpacked with byte caps counted as
// the data inflates (a zip bomb stops at the cap, whatever its headers claim), names that are
// paths inside the skill only (no absolute path, no `..`, no backslash, no control character),
// then written into a temporary folder beside the skills and checked as a skill (SKILL.md, name,
// sizes) before one rename puts it in place. A refusal leaves nothing behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Unzip, UnzipInflate, UnzipPassThrough } from 'fflate';
import { SKILL_NAME_PATTERN } from '@/lib/config/skill-name';
import { globalSkillsDir, personaSkillsDir, readSkillFolder, SKILL_LIMITS, SkillError, skillsChanged, type Skill, type SkillSource } from './skill-files';
import { errorText } from '@/lib/errors/error-text';

export class SkillImportError extends SkillError {
  constructor(
    message: string,
    readonly code: 'invalid' | 'exists' | 'not_found' = 'invalid',
  ) {
    super(message);
  }
}

/** A path inside a skill, as given by an archive or a browser's folder upload; null for one to skip (folders, macOS metadata). */
export function skillFilePath(given: string): string | null {
  if (given.endsWith('/')) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(given) || given.startsWith('/') || /^[A-Za-z]:/.test(given)) throw new SkillImportError(`"${given.slice(0, 100)}" is not a path inside the skill`);
  const parts = given.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..')) throw new SkillImportError(`"${given.slice(0, 100)}" leads outside the skill`);
  if (parts[0] === '__MACOSX' || parts.at(-1) === '.DS_Store') return null;
  if (parts.length === 0) return null;
  if (parts.length > SKILL_LIMITS.depth + 1) throw new SkillImportError(`"${given.slice(0, 100)}" nests deeper than ${SKILL_LIMITS.depth} folders`);
  return parts.join('/');
}

/** The files of a zip archive, inflated under the skill caps. */
export function unzipSkill(archive: Uint8Array): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let total = 0;
  let failure: Error | null = null;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.onfile = (file) => {
    if (failure) return;
    let name: string | null;
    try {
      name = skillFilePath(file.name);
    } catch (error) {
      failure = error as Error;
      return;
    }
    if (name === null) return;
    if (files.size >= SKILL_LIMITS.files + 1) {
      failure = new SkillImportError(`more than ${SKILL_LIMITS.files} files`);
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        failure = new SkillImportError(`${name} cannot be unpacked: ${error.message}`);
        return;
      }
      size += data.length;
      total += data.length;
      if (size > SKILL_LIMITS.fileBytes) failure = new SkillImportError(`${name} unpacks to more than ${SKILL_LIMITS.fileBytes / 1024 / 1024} MB`);
      else if (total > SKILL_LIMITS.totalBytes) failure = new SkillImportError(`the archive unpacks to more than ${SKILL_LIMITS.totalBytes / 1024 / 1024} MB`);
      else chunks.push(data);
      if (final && !failure) files.set(name!, Buffer.concat(chunks));
    };
    try {
      file.start();
    } catch (error) {
      failure = new SkillImportError(`${name} cannot be unpacked: ${errorText(error)}`);
    }
  };
  try {
    unzip.push(archive, true);
  } catch (error) {
    failure ??= new SkillImportError(`not a zip archive that can be read: ${errorText(error)}`);
  }
  if (failure) throw failure;
  if (files.size === 0) throw new SkillImportError('the archive holds no files');
  return files;
}

/** One top folder around everything (a zipped folder, a browser's folder upload) is taken off. */
function withoutCommonFolder(files: Map<string, Buffer>): Map<string, Buffer> {
  if (files.has('SKILL.md')) return files;
  const tops = new Set([...files.keys()].map((name) => name.split('/')[0]));
  if (tops.size !== 1 || [...files.keys()].some((name) => !name.includes('/'))) return files;
  const prefix = `${[...tops][0]}/`;
  return new Map([...files].map(([name, bytes]) => [name.slice(prefix.length), bytes]));
}

function targetRoot(source: SkillSource): string {
  return source.kind === 'global' ? globalSkillsDir() : personaSkillsDir(source.persona);
}

/** Writes the files as a new skill (or over one of the same name when `replace`), checked first. */
export function installSkill(given: Map<string, Buffer>, source: SkillSource, options: { replace?: boolean } = {}): Skill {
  const files = withoutCommonFolder(given);
  if (!files.has('SKILL.md')) throw new SkillImportError('no SKILL.md at the top of the skill');
  if (files.size > SKILL_LIMITS.files + 1) throw new SkillImportError(`more than ${SKILL_LIMITS.files} files`);
  const root = targetRoot(source);
  fs.mkdirSync(root, { recursive: true });
  const staging = path.join(root, `.incoming-${randomBytes(6).toString('hex')}`);
  try {
    for (const [name, bytes] of files) {
      const target = path.join(staging, name);
      if (!target.startsWith(`${staging}${path.sep}`)) throw new SkillImportError(`"${name}" leads outside the skill`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, bytes, { flag: 'wx', mode: 0o644 });
    }
    // Checked as a skill where it stands: the folder's name is the one its SKILL.md gives.
    const named = /^name:\s*["']?([^"'\s]+)/m.exec(files.get('SKILL.md')!.toString('utf8'))?.[1] ?? '';
    if (!SKILL_NAME_PATTERN.test(named)) throw new SkillImportError('SKILL.md must name the skill: lowercase letters, digits and hyphens');
    const renamed = path.join(path.dirname(staging), `.incoming-${randomBytes(6).toString('hex')}`, named);
    fs.mkdirSync(path.dirname(renamed));
    fs.renameSync(staging, renamed);
    let checked: Skill;
    try {
      const { body: _body, ...skill } = readSkillFolder(renamed, source);
      checked = skill;
    } catch (error) {
      fs.rmSync(path.dirname(renamed), { recursive: true, force: true });
      throw error instanceof SkillError && !(error instanceof SkillImportError) ? new SkillImportError(error.message) : error;
    }
    const final = path.join(root, named);
    if (fs.existsSync(final)) {
      if (!options.replace) {
        fs.rmSync(path.dirname(renamed), { recursive: true, force: true });
        throw new SkillImportError(`a skill named ${named} is already installed: delete it first, or replace it`, 'exists');
      }
      fs.rmSync(final, { recursive: true, force: true });
    }
    fs.renameSync(renamed, final);
    fs.rmSync(path.dirname(renamed), { recursive: true, force: true });
    return { ...checked, dir: fs.realpathSync(final) };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    skillsChanged();
  }
}

/** Removes an installed skill (its folder only, found by its checked name). */
export function deleteSkill(name: string, source: SkillSource): void {
  if (!SKILL_NAME_PATTERN.test(name)) throw new SkillImportError(`${name.slice(0, 80)} is not a skill name`, 'not_found');
  const dir = path.join(targetRoot(source), name);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    throw new SkillImportError(`no skill named ${name}`, 'not_found');
  }
  // A link where a skill was is removed as a link, never followed.
  if (stat.isSymbolicLink()) fs.unlinkSync(dir);
  else fs.rmSync(dir, { recursive: true, force: true });
  skillsChanged();
}
