// A standing tool rule's matcher as the page and a settings file give it (lib/store/tool-rules-repository.ts says what each kind matches).
import { z } from 'zod';

export const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name');

export const ruleMatcherSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool') }).strict(),
  z.object({ kind: z.literal('command'), argv: z.array(z.string().min(1).max(1_000)).min(1).max(100) }).strict(),
  z.object({ kind: z.literal('command-prefix'), argv: z.array(z.string().min(1).max(1_000)).min(1).max(100) }).strict(),
  z.object({ kind: z.literal('code'), code: z.string().min(1).max(100_000) }).strict(),
  z.object({ kind: z.literal('path-glob'), glob: z.string().min(1).max(1_000).refine((glob) => !glob.startsWith('/') && !glob.split('/').includes('..'), 'a glob inside the workspace (no leading /, no ..)') }).strict(),
]);
