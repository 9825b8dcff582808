// What the capability routes share: the body schema (a graph of any shape: the validator, not zod,
// says what is wrong with it), the 400 that lists every error, and the graph as a browser sees it.
import { z } from 'zod';
import { capabilitiesOf, maskGraphSecrets } from './capability-set';
import type { AgentGraph, GraphError } from './validate';

export const graphBodySchema = z.object({ graph: z.unknown() }).strict();

export function invalidGraphResponse(errors: GraphError[]): Response {
  const message = `The graph has ${errors.length} error${errors.length === 1 ? '' : 's'}: ${errors.map((error) => `${error.code} at ${error.path}`).join('; ')}`;
  return Response.json({ error: { code: 'invalid_graph', message, details: errors } }, { status: 400 });
}

export function graphJson(graph: AgentGraph, stored: boolean) {
  const capabilities = capabilitiesOf(graph);
  return { graph: maskGraphSecrets(graph), stored, capabilities: { ...capabilities, postgres: capabilities.postgres && { ...capabilities.postgres, connection: capabilities.postgres.connection ? '••••' : undefined } } };
}
