import { listSkills } from '@/lib/skills/skill-files';
import { effectivePersonaGraph, readPersonaGraph, writePersonaGraph } from '@/lib/capabilities/graph-store';
import { graphBodySchema, graphJson, invalidGraphResponse } from '@/lib/capabilities/graph-api';
import { restoreGraphSecrets } from '@/lib/capabilities/capability-set';
import { validateGraph } from '@/lib/capabilities/validate';
import { validationError } from '@/lib/http/api-error';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { readPersona } from '@/lib/personas/persona-files';
import { readMcpSettings } from '@/lib/store/settings-repository';
import { personaParamsSchema } from '../schema';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ name: string }> };

/** The persona must exist (a 404 otherwise); its name is checked like every persona name. */
async function personaName(context: Context): Promise<string> {
  const result = personaParamsSchema.safeParse(await context.params);
  if (!result.success) throw validationError(result.error, 'persona name');
  readPersona(result.data.name);
  return result.data.name;
}

/** The persona's agent graph (the default one until a graph is saved), its secrets masked, and what it gives the agent. */
export const GET = handle(async (_request, context: Context) => {
  const name = await personaName(context);
  const { graph, stored } = await effectivePersonaGraph(name, Object.keys((await readMcpSettings()).mcpServers), listSkills({ persona: name }).skills.map((skill) => skill.name));
  return Response.json(graphJson(graph, stored));
});

/** Saves a graph: refused with every error listed unless it validates. Masked secrets keep the stored values. */
export const PUT = handle(async (request, context: Context) => {
  const name = await personaName(context);
  const body = await readJsonBody(request, graphBodySchema);
  const checked = validateGraph(body.graph);
  if (!checked.ok) return invalidGraphResponse(checked.errors);
  const graph = restoreGraphSecrets(checked.graph, await readPersonaGraph(name));
  await writePersonaGraph(name, graph);
  return Response.json(graphJson(graph, true));
});
