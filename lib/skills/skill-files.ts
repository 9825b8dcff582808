// Skills on disk (issue 34, seed 001's "skills activas"): a folder with a SKILL.md — YAML front
// matter with `name` and `description`, instructions in the body — and optional scripts and
// reference files. Global skills live in AGENTCSD_SKILLS_DIR (./skills); a persona's own in
// <personas>/<persona>.skills/. Read fresh on every listing (a few small files), so a skill changed
// on disk is picked up without a restart. Everything about a folder is checked before it is
// offered: the name pattern and the folder's name, the description's length, the body's and the
// files' sizes, no symbolic links, nothing but regular files and folders.
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { appPaths, readEnv } from '@/lib/config/env';
import { skillNameSchema } from '@/lib/config/skill-name';
import { errorText } from '@/lib/errors/error-text';
import { processSlot } from '@/lib/process/process-state';

export const SKILL_LIMITS = {
  descriptionChars: 1_024,
  /** SKILL.md as a whole. */
  skillMdBytes: 64 * 1024,
  files: 200,
  fileBytes: 2 * 1024 * 1024,
  totalBytes: 10 * 1024 * 1024,
  depth: 6,
} as const;

export class SkillError extends Error {}

export type SkillSource = { kind: 'global' } | { kind: 'persona'; persona: string };

export interface SkillFile {
  /** Relative to the skill's folder, with `/`. */
  path: string;
  size: number;
}

export interface Skill {
  name: string;
  description: string;
  source: SkillSource;
  /** The folder's real path. */
  dir: string;
  /** Every file but SKILL.md. */
  files: SkillFile[];
  bytes: number;
}

export interface SkillProblem {
  folder: string;
  source: SkillSource;
  message: string;
}

const frontMatterSchema = z
  .object({
    name: skillNameSchema,
    description: z
      .string()
      .trim()
      .min(1, 'description must not be empty')
      .max(SKILL_LIMITS.descriptionChars, `description must be at most ${SKILL_LIMITS.descriptionChars} characters`),
  })
  .passthrough();

/** SKILL.md's front matter and body; refuses a file without valid front matter. */
export function parseSkillMd(text: string): { name: string; description: string; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new SkillError('SKILL.md must start with YAML front matter between --- lines');
  // No aliases: a "billion laughs" document is refused, not expanded.
  const document = parseDocument(match[1]!, { uniqueKeys: true, schema: 'core' });
  if (document.errors.length > 0) throw new SkillError(`the front matter is not valid YAML: ${document.errors[0]!.message.split('\n')[0]}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 0 });
  } catch (error) {
    throw new SkillError(`the front matter is not valid YAML: ${errorText(error).split('\n')[0]}`);
  }
  const parsed = frontMatterSchema.safeParse(value);
  if (!parsed.success) throw new SkillError(parsed.error.issues[0]!.message);
  return { name: parsed.data.name, description: parsed.data.description, body: match[2]!.trim() };
}

export function globalSkillsDir(): string {
  return path.resolve(readEnv().AGENTCSD_SKILLS_DIR);
}

export function personaSkillsDir(persona: string): string {
  return path.join(appPaths().personasDir, `${persona}.skills`);
}

/** Walks a skill folder: regular files and folders only, within the limits. */
function walk(root: string): { files: SkillFile[]; bytes: number } {
  const files: SkillFile[] = [];
  let bytes = 0;
  const visit = (relative: string, depth: number) => {
    if (depth > SKILL_LIMITS.depth) throw new SkillError(`folders nest deeper than ${SKILL_LIMITS.depth}`);
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) throw new SkillError(`${child} is a symbolic link: skills hold files, not links`);
      if (entry.isDirectory()) {
        visit(child, depth + 1);
        continue;
      }
      if (!entry.isFile()) throw new SkillError(`${child} is not a regular file`);
      const stat = fs.lstatSync(path.join(root, child));
      if (stat.nlink > 1) throw new SkillError(`${child} has hard links: files linked from elsewhere are refused`);
      if (stat.size > SKILL_LIMITS.fileBytes) throw new SkillError(`${child} is larger than ${SKILL_LIMITS.fileBytes / 1024 / 1024} MB`);
      bytes += stat.size;
      if (child !== 'SKILL.md') files.push({ path: child, size: stat.size });
      if (files.length > SKILL_LIMITS.files) throw new SkillError(`more than ${SKILL_LIMITS.files} files`);
      if (bytes > SKILL_LIMITS.totalBytes) throw new SkillError(`larger than ${SKILL_LIMITS.totalBytes / 1024 / 1024} MB in all`);
    }
  };
  visit('', 0);
  return { files, bytes };
}

/**
 * SKILL.md parsed, from memory while the file is the one parsed (same inode, size, change time):
 * the list is read for every prompt, and parsing the YAML front matter of each skill was most of a
 * tool step's time spent on skills (issue 43 §3). The folder's checks (walk) still run every time.
 */
const parsedCache = processSlot('skills.parsed', () => new Map<string, { stamp: string; parsed: ReturnType<typeof parseSkillMd> }>()).value;
function parsedSkillMd(file: string, stat: fs.Stats): ReturnType<typeof parseSkillMd> {
  const stamp = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  const cached = parsedCache.get(file);
  if (cached?.stamp === stamp) return cached.parsed;
  const parsed = parseSkillMd(fs.readFileSync(file, 'utf8'));
  if (parsedCache.size >= 500) parsedCache.delete(parsedCache.keys().next().value!);
  parsedCache.set(file, { stamp, parsed });
  return parsed;
}

/** One skill folder, checked; refuses (SkillError) with the reason. */
export function readSkillFolder(dir: string, source: SkillSource): Skill & { body: string } {
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) throw new SkillError('not a folder (a link to one is refused)');
  const skillMd = path.join(dir, 'SKILL.md');
  let mdStat: fs.Stats;
  try {
    mdStat = fs.lstatSync(skillMd);
  } catch {
    throw new SkillError('no SKILL.md in the folder');
  }
  if (!mdStat.isFile()) throw new SkillError('SKILL.md is not a regular file');
  if (mdStat.size > SKILL_LIMITS.skillMdBytes) throw new SkillError(`SKILL.md is larger than ${SKILL_LIMITS.skillMdBytes / 1024} KB`);
  const { files, bytes } = walk(dir);
  const parsed = parsedSkillMd(skillMd, mdStat);
  if (parsed.name !== path.basename(dir)) throw new SkillError(`its name "${parsed.name}" differs from its folder's`);
  return { name: parsed.name, description: parsed.description, body: parsed.body, source, dir: fs.realpathSync(dir), files, bytes };
}

function readSkillsIn(root: string, source: SkillSource, into: { skills: Skill[]; problems: SkillProblem[] }): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return; // no such folder: no skills there
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    try {
      const { body: _body, ...skill } = readSkillFolder(path.join(root, entry.name), source);
      into.skills.push(skill);
    } catch (error) {
      if (!(error instanceof SkillError) && (error as NodeJS.ErrnoException).code === undefined) throw error;
      into.problems.push({ folder: entry.name, source, message: errorText(error) });
    }
  }
}

/** The global skills and, given a persona, its own (which win over a global one of the same name). */
export function listSkills(input: { persona?: string } = {}): { skills: Skill[]; problems: SkillProblem[] } {
  const found = { skills: [] as Skill[], problems: [] as SkillProblem[] };
  readSkillsIn(globalSkillsDir(), { kind: 'global' }, found);
  if (input.persona) {
    const own = { skills: [] as Skill[], problems: found.problems };
    readSkillsIn(personaSkillsDir(input.persona), { kind: 'persona', persona: input.persona }, own);
    const names = new Set(own.skills.map((skill) => skill.name));
    found.skills = [...found.skills.filter((skill) => !names.has(skill.name)), ...own.skills];
  }
  return found;
}

/** In the process state: a skill installed by a route must reach the minds' lists (issue 72 §0). */
const skillsSeen = processSlot('skills.version', () => ({ version: 0 })).value;

/** The app installed or removed a skill: lists kept for a moment are read again (skillsVersion). */
export function skillsChanged(): void {
  skillsSeen.version += 1;
}

/** Changes with every skill the app installs or removes. */
export function skillsVersion(): number {
  return skillsSeen.version;
}

/** A skill's instructions, read now (refused if the folder no longer passes its checks). */
export function skillBody(skill: Pick<Skill, 'dir' | 'source'>): string {
  return readSkillFolder(skill.dir, skill.source).body;
}
