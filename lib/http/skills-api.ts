// The Skills page's API (issue 34): skills as JSON with the personas that have them, where a skill
// is installed (global, or a persona's own), and the multipart form an import comes in — a .zip in
// `archive`, or a folder's files in `files` (each named by its path inside the folder).
import { z } from 'zod';
import { capabilitiesOf, withSkill } from '@/lib/capabilities/capability-set';
import { effectivePersonaGraph, writePersonaGraph } from '@/lib/capabilities/graph-store';
import { validateGraph } from '@/lib/capabilities/validate';
import { personaNameSchema } from '@/lib/personas/persona-name';
import { listPersonas, readPersona } from '@/lib/personas/persona-files';
import { listSkills, SKILL_LIMITS, type Skill, type SkillSource } from '@/lib/skills/skill-files';
import { SkillImportError, skillFilePath, unzipSkill } from '@/lib/skills/skill-import';
import { readMcpSettings } from '@/lib/store/settings-repository';
import { ApiError } from './api-error';
import { readMultipartForm } from './route-helpers';

export const skillScopeSchema = z.object({ persona: personaNameSchema.optional() }).strict();

/** Where a skill is installed: `?persona=` names a persona's own folder (which must exist as a persona). */
export function skillSource(scope: { persona?: string }): SkillSource {
  if (!scope.persona) return { kind: 'global' };
  readPersona(scope.persona);
  return { kind: 'persona', persona: scope.persona };
}

export function skillJson(skill: Skill, personas: string[] = []) {
  return {
    name: skill.name,
    description: skill.description,
    source: skill.source.kind === 'global' ? 'global' : `persona:${skill.source.persona}`,
    files: skill.files,
    bytes: skill.bytes,
    personas,
  };
}

/** Each persona's skills now: its graph's skill nodes (a default graph has all of them). */
export async function personasBySkill(): Promise<Map<string, string[]>> {
  const mcp = Object.keys((await readMcpSettings()).mcpServers);
  const byName = new Map<string, string[]>();
  for (const persona of listPersonas()) {
    const available = listSkills({ persona: persona.name }).skills.map((skill) => skill.name);
    const { graph } = await effectivePersonaGraph(persona.name, mcp, available);
    for (const name of capabilitiesOf(graph).skills) byName.set(name, [...(byName.get(name) ?? []), persona.name]);
  }
  return byName;
}

/** Gives the persona the skill or takes it away, in its graph (a default graph is saved with the change). */
export async function setPersonaSkill(persona: string, name: string, enabled: boolean): Promise<string[]> {
  readPersona(persona);
  const available = listSkills({ persona }).skills.map((skill) => skill.name);
  if (enabled && !available.includes(name)) throw new ApiError('not_found', `No skill ${name} for ${persona}`);
  const { graph } = await effectivePersonaGraph(persona, Object.keys((await readMcpSettings()).mcpServers), available);
  const checked = validateGraph(withSkill(graph, name, enabled));
  if (!checked.ok) throw new ApiError('validation_failed', checked.errors[0]?.message ?? 'the graph would not be valid');
  await writePersonaGraph(persona, checked.graph);
  return capabilitiesOf(checked.graph).skills;
}

/** The import form: a zip archive, or a folder's files by their paths. */
export async function readSkillForm(request: Request): Promise<{ files: Map<string, Buffer>; replace: boolean; scope: { persona?: string } }> {
  const form = await readMultipartForm(request, SKILL_LIMITS.totalBytes + 1024 * 1024, 'Send the skill as multipart/form-data: a .zip in "archive", or the folder\'s files in "files"');
  const persona = form.get('persona');
  const scope = skillScopeSchema.safeParse({ persona: typeof persona === 'string' && persona ? persona : undefined });
  if (!scope.success) throw new ApiError('validation_failed', 'persona must be a persona name');
  try {
    const archive = form.get('archive');
    if (archive instanceof File) return { files: unzipSkill(new Uint8Array(await archive.arrayBuffer())), replace: form.get('replace') === 'true', scope: scope.data };
    const files = new Map<string, Buffer>();
    for (const entry of form.getAll('files')) {
      if (!(entry instanceof File)) continue;
      const name = skillFilePath(entry.name);
      if (name !== null) files.set(name, Buffer.from(await entry.arrayBuffer()));
    }
    if (files.size === 0) throw new ApiError('validation_failed', 'The form needs a .zip in "archive" or the folder\'s files in "files"');
    return { files, replace: form.get('replace') === 'true', scope: scope.data };
  } catch (error) {
    if (error instanceof SkillImportError) throw new ApiError('unprocessable', error.message);
    throw error;
  }
}

/** A skill error as the REST answer: 409 for a name taken, 404 for none, 422 for a skill that does not pass. */
export function skillApiError(error: unknown): unknown {
  if (!(error instanceof SkillImportError)) return error;
  return new ApiError(error.code === 'exists' ? 'conflict' : error.code === 'not_found' ? 'not_found' : 'unprocessable', error.message);
}
