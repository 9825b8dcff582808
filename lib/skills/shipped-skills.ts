// The skills the app ships in ./skills, known by their content (issue 41 §9). A skill's files are
// someone else's text like any web page: reading one marks the session untrusted — unless the
// skill is one of these, exactly as shipped (an imported skill under a shipped name, or a shipped
// one edited, has another digest), or the user trusts it in Settings › Tools › Trusted sources.
// lib/skills/shipped-skills.test.ts fails when a shipped skill changes without its digest here.
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '@/lib/security/digest';
import type { Skill } from './skill-files';

export const SHIPPED_SKILL_DIGESTS: Readonly<Record<string, string>> = {
  'bug-report': '6f8cc24f4abe037cbbf3419576df58da35fa31ae0b76c6e1ed5d34488ceeaefc',
  'plan-task': '24e8263e6d9f15b130f8d7ac32c66015aa4312244ef0c57ff0ad9467ba2f3844',
  'summarize-file': '421bce9abb0c97dbba895a69e7da86dc17141cd666736ade5c0f4a1beaee4260',
};

/** The digest of a skill folder's contents: every file's path and bytes, SKILL.md included. */
export function skillDigest(skill: Pick<Skill, 'dir' | 'files'>): string {
  const paths = ['SKILL.md', ...skill.files.map((file) => file.path)].sort();
  return sha256Hex(paths.map((relative) => `${relative}\u0000${sha256Hex(fs.readFileSync(path.join(skill.dir, relative)))}`).join('\n'));
}

/** Whether this is a skill the app ships, unchanged. */
export function isShippedSkill(skill: Pick<Skill, 'name' | 'dir' | 'files'>): boolean {
  const expected = SHIPPED_SKILL_DIGESTS[skill.name];
  if (!expected) return false;
  try {
    return skillDigest(skill) === expected;
  } catch {
    return false;
  }
}
