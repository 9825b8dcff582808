// The contract every tool meets, built-in or from an MCP server: a definition the model sees,
// an argument schema checked on the server, whether a human must approve a call, and a run.
import { z } from 'zod';
import type { ImageProvider } from '@/lib/attachments/image-prep';
import type { ImageBlock } from '@/lib/backends/model-backend';
import type { UntrustedOrigin } from '@/lib/config/trust-config';
import type { ToolTrait } from '@/lib/people/tool-traits';

/** JSON Schema of a tool's input, as the providers take it (`type: "object"` at the top). */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

export interface ToolDefinition {
  /** `^[a-zA-Z0-9_-]{1,64}$` — what every provider accepts. */
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
}

/** `required`: a person decides each call unless an always-allow rule matches it. */
export type ApprovalPolicy = 'never' | 'required';

export interface ToolRunContext {
  sessionId: string;
  /** The call being run (a client's tool waits on it for the client's output). */
  callId?: string;
  /** Real path of the session's workspace. */
  workspaceDir: string;
  signal: AbortSignal;
  /** Live output for the Internal panel (shell tools). */
  onOutput?: (chunk: { stream: 'stdout' | 'stderr'; text: string }) => void;
  /** Whether the layer's model sees images, and in which provider's shape (view_image). */
  sight?: { provider: ImageProvider } | { reason: string };
  /** Folders bound read-only into the sandbox (a session's skills at /skills/<name>). */
  readOnlyMounts?: { host: string; inside: string }[];
}

export interface ToolOutcome {
  isError: boolean;
  /** What the model receives as the tool's result. */
  content: string;
  exitCode?: number | null;
  /** Bytes of output dropped by a cap (reported in `content` too). */
  droppedBytes?: number;
  timedOut?: boolean;
  cancelled?: boolean;
  /** The result carries content from outside (a web page, a memory written from one): untrusted unless the user trusts its origin. */
  untrusted?: UntrustedOrigin;
  /** The result only reports the call's own status, as its tool declared (no text from outside): it marks nothing (issue 44 §3). */
  statusOnly?: boolean;
  /** Images the model is shown with the result (view_image), held for the turn's next steps. */
  images?: ImageBlock[];
}

export interface Tool<Args = unknown> {
  definition: ToolDefinition;
  approval: ApprovalPolicy;
  /** When the need for approval depends on the call (a reminder tomorrow vs a recurring job): decided on the server from the checked arguments. */
  approvalFor?(args: Args): ApprovalPolicy;
  /**
   * What every call of it does (issue 58, ARCHITECTURE §26): the rights authority offers it only to
   * conversations whose people may do all of it. A tool that declares none is refused to guests.
   */
  traits?: readonly ToolTrait[];
  /** What this call does beyond `traits` (remember with scope shared: it shares a memory). */
  callTraits?(args: Args): readonly ToolTrait[];
  /** Asked before the call is proposed: a refusal (in words) fails it at once, with no card for anyone. */
  screen?(args: Args, context: { sessionId: string }): Promise<string | null>;
  /** Where the tool comes from: shown in Settings and on the card. */
  source: 'builtin' | { mcpServer: string };
  /**
   * Whether this call can send data out of the app or act outside the workspace (a request, a
   * server's write, a schedule): once a turn holds untrusted content such a call asks first
   * (§20). MCP tools: every call but a read-only one of a trusted server, decided by the toolbox.
   */
  sendsOut?(args: Args): boolean;
  /** MCP: the server's read-only hint (and no destructive hint). */
  readOnly?: boolean;
  /** MCP: the user approved this description in Settings and it has not changed since (a changed one is a "rug pull"). */
  descriptionReviewed?: boolean;
  args: z.ZodType<Args>;
  /** The line a card shows first: the command, the code's first line, the path. */
  describeCall(args: Args): string;
  run(args: Args, context: ToolRunContext): Promise<ToolOutcome>;
}

/** A result the model gets instead of a crash: the reason, verbatim. */
export function errorOutcome(message: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { isError: true, content: message, ...extra };
}

/** A built-in tool from its parts: the JSON Schema the model sees is derived from the zod one. */
export function builtinTool<Args>(parts: {
  name: string;
  description: string;
  args: z.ZodType<Args>;
  approval?: ApprovalPolicy;
  approvalFor?: (args: Args) => ApprovalPolicy;
  sendsOut?: (args: Args) => boolean;
  traits: readonly ToolTrait[];
  callTraits?: (args: Args) => readonly ToolTrait[];
  screen?: (args: Args, context: { sessionId: string }) => Promise<string | null>;
  describeCall: (args: Args) => string;
  run: (args: Args, context: ToolRunContext) => Promise<ToolOutcome>;
}): Tool<Args> {
  return {
    definition: {
      name: parts.name,
      description: parts.description,
      inputSchema: z.toJSONSchema(parts.args, { io: 'input' }) as ToolInputSchema,
    },
    approval: parts.approval ?? 'never',
    traits: parts.traits,
    ...(parts.callTraits && { callTraits: parts.callTraits }),
    ...(parts.screen && { screen: parts.screen }),
    source: 'builtin',
    ...(parts.approvalFor && { approvalFor: parts.approvalFor }),
    ...(parts.sendsOut && { sendsOut: parts.sendsOut }),
    args: parts.args,
    describeCall: parts.describeCall,
    run: parts.run,
  };
}
