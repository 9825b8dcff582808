// Seed 001's crew (issue 34): a general assistant that loads skills and delegates, with a
// researcher and a reviewer as its specialists. "Try the crew" installs what is missing — the
// three persona files (never over the user's own) and a graph for each (never over a stored one)
// — so a fresh install runs the crew with one click. The Markdown lives in lib/crew/personas/.
import fs from 'node:fs';
import path from 'node:path';
import { defaultGraph } from '@/lib/capabilities/capability-set';
import { readPersonaGraph, writePersonaGraph } from '@/lib/capabilities/graph-store';
import { validateGraph, type AgentGraph } from '@/lib/capabilities/validate';
import { createPersona, listPersonas } from '@/lib/personas/persona-files';
import { listSkills } from '@/lib/skills/skill-files';

export const CREW_LEAD = 'general-assistant' as const;
export const CREW_SPECIALISTS = ['researcher', 'reviewer'] as const;
const CREW = [CREW_LEAD, ...CREW_SPECIALISTS] as const;
type CrewMember = (typeof CREW)[number];

/** Each member's tools and skills (the lead's graph names both specialists; skills only when installed). */
const MEMBERS: Record<CrewMember, { drop: string[]; skills: string[] | 'all'; delegates: readonly string[] }> = {
  'general-assistant': { drop: [], skills: 'all', delegates: CREW_SPECIALISTS },
  // Reads and computes; no shell.
  researcher: { drop: ['bash'], skills: ['summarize-file'], delegates: [] },
  // Reads only: it reports, it changes nothing.
  reviewer: { drop: ['bash', 'python'], skills: ['bug-report'], delegates: [] },
};

/** The first task "Try the crew" gives the lead: it plans, notes, delegates a review and finishes. */
export const CREW_FIRST_TASK = {
  goal: 'Write a five-line release note for version 1.2 of a small command-line tool (faster start, a --json flag, two bug fixes), ask the reviewer to check it, and give me the final text.',
  constraints: { max_steps: 12, timeout_s: 900, max_tokens: 200_000 },
};

function templateDir(): string {
  return path.join(process.cwd(), 'lib', 'crew', 'personas');
}

/** A member's graph: the default one less what it should not have, its skills, its specialists. */
export function crewGraph(persona: CrewMember, installedSkills: readonly string[]): AgentGraph {
  const member = MEMBERS[persona];
  const skills = member.skills === 'all' ? installedSkills : member.skills.filter((name) => installedSkills.includes(name));
  const graph = defaultGraph(persona, [], skills);
  const dropped = new Set(member.drop);
  const below = Math.max(...graph.nodes.map((node) => node.position?.y ?? 0)) + 160;
  const delegates = member.delegates.map((name, index) => ({ id: `delegate_${name}`, type: 'agent.delegate', config: { persona: name }, position: { x: 300 + index * 200, y: below } }));
  return {
    ...graph,
    nodes: [...graph.nodes.filter((node) => !dropped.has(node.id)), ...delegates],
    edges: [...graph.edges.filter((edge) => !dropped.has(edge.target)), ...delegates.map((node) => ({ id: `e_${node.id}`, source: 'core', target: node.id }))],
  };
}

/** Installs what the crew lacks; says what it added. The user's own files and graphs are kept. */
export async function installCrew(): Promise<{ personas: string[]; graphs: string[] }> {
  const existing = new Set(listPersonas().map((persona) => persona.name));
  const installed = { personas: [] as string[], graphs: [] as string[] };
  const skills = listSkills().skills.map((skill) => skill.name);
  for (const name of CREW) {
    if (!existing.has(name)) {
      createPersona({ name, content: fs.readFileSync(path.join(templateDir(), `${name}.md`), 'utf8') });
      installed.personas.push(name);
    }
    if (!(await readPersonaGraph(name))) {
      const checked = validateGraph(crewGraph(name, skills));
      if (!checked.ok) throw new Error(`the crew's graph for ${name} is invalid: ${checked.errors[0]?.message}`);
      await writePersonaGraph(name, checked.graph);
      installed.graphs.push(name);
    }
  }
  return installed;
}
