import { handle } from '@/lib/http/route-helpers';
import { personasBySkill, readSkillForm, skillApiError, skillJson, skillSource } from '@/lib/http/skills-api';
import { listPersonas } from '@/lib/personas/persona-files';
import { listSkills } from '@/lib/skills/skill-files';
import { installSkill } from '@/lib/skills/skill-import';

export const dynamic = 'force-dynamic';

/** Every skill (global, and each persona's own), the personas that have it, and folders that do not pass with the reason. */
export const GET = handle(async () => {
  const personas = listPersonas().map((persona) => persona.name);
  const byName = await personasBySkill();
  const global = listSkills();
  const own = personas.map((persona) => listSkills({ persona }));
  const skills = [
    ...global.skills.map((skill) => skillJson(skill, byName.get(skill.name) ?? [])),
    ...own.flatMap((found, index) => found.skills.filter((skill) => skill.source.kind === 'persona').map((skill) => skillJson(skill, byName.get(skill.name)?.includes(personas[index]!) ? [personas[index]!] : []))),
  ];
  const problems = [...global.problems, ...own.flatMap((found) => found.problems.filter((problem) => problem.source.kind === 'persona'))].map((problem) => ({
    folder: problem.folder,
    source: problem.source.kind === 'global' ? 'global' : `persona:${problem.source.persona}`,
    message: problem.message,
  }));
  return Response.json({ skills, problems, personas });
});

/** Installs a skill from a .zip (`archive`) or a folder's files (`files`); `persona` makes it that persona's own. */
export const POST = handle(async (request) => {
  const form = await readSkillForm(request);
  try {
    const skill = installSkill(form.files, skillSource(form.scope), { replace: form.replace });
    return Response.json({ skill: skillJson(skill) }, { status: 201 });
  } catch (error) {
    throw skillApiError(error);
  }
});
