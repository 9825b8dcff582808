// A skill's name (issue 34, the SKILL.md convention): lowercase letters, digits and hyphens, 1–64,
// not starting or ending with a hyphen. The folder, the front matter and a graph's `skill` node
// all use it, so it lives below them.
import { z } from 'zod';

export const SKILL_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const skillNameSchema = z.string().regex(SKILL_NAME_PATTERN, 'a skill name is lowercase letters, digits and hyphens (1–64, not starting or ending with a hyphen)');
