// Built-in `bash` and `python`: always in the sandbox (sandbox.ts), always behind a person's
// approval unless an always-allow rule matches. Without a working sandbox they refuse to run.
import { z } from 'zod';
import { probeSandbox, runSandboxed, type SandboxRunResult } from '@/lib/tools/sandbox';
import { builtinTool, errorOutcome, type ToolOutcome, type ToolRunContext } from '@/lib/tools/tool-types';

export const SHELL_DEFAULT_TIMEOUT_S = 120;
const SHELL_MAX_TIMEOUT_S = 600;
/** What the sandbox keeps of a call's output (the panel's "show all"). */
export const SHELL_OUTPUT_CAP_BYTES = 1024 * 1024;
const SOURCE_CAP_CHARS = 100_000;

/** Both streams in one text the model reads, with how the run ended. */
export function formatShellResult(result: SandboxRunResult, timeoutS: number): ToolOutcome {
  const parts: string[] = [];
  if (result.stdout) parts.push(result.stdout.trimEnd());
  if (result.stderr) parts.push(`[stderr]\n${result.stderr.trimEnd()}`);
  if (result.droppedBytes > 0) parts.push(`[output cut: ${result.droppedBytes} more bytes were dropped]`);
  let ending: string;
  if (result.timedOut) ending = `[stopped: the ${timeoutS} s time limit was reached]`;
  else if (result.cancelled) ending = '[stopped by the user]';
  else if (result.exitCode === null) ending = `[ended by signal ${result.signal ?? 'unknown'}]`;
  else ending = `[exit code ${result.exitCode}]`;
  parts.push(ending);
  return {
    isError: result.timedOut || result.cancelled || result.exitCode !== 0,
    content: parts.join('\n'),
    exitCode: result.exitCode,
    droppedBytes: result.droppedBytes,
    timedOut: result.timedOut,
    cancelled: result.cancelled,
  };
}

async function runInSandbox(argv: string[], timeoutS: number, context: ToolRunContext): Promise<ToolOutcome> {
  const status = await probeSandbox();
  if (!status.available) return errorOutcome(`Not run: ${status.reason}. Shell tools are disabled without the sandbox.`);
  const result = await runSandboxed({
    workspaceDir: context.workspaceDir,
    argv,
    timeoutMs: timeoutS * 1000,
    outputCapBytes: SHELL_OUTPUT_CAP_BYTES,
    signal: context.signal,
    onOutput: context.onOutput,
    readOnlyMounts: context.readOnlyMounts,
  });
  return formatShellResult(result, timeoutS);
}

const timeoutField = z
  .number()
  .int()
  .min(1)
  .max(SHELL_MAX_TIMEOUT_S)
  .optional()
  .describe(`Seconds before the run is stopped (default ${SHELL_DEFAULT_TIMEOUT_S})`);

const bashArgs = z.strictObject({
  command: z.string().min(1).max(SOURCE_CAP_CHARS).describe('The bash command line to run in the workspace'),
  explanation: z.string().max(2_000).optional().describe('What the command does and why, for the person approving it'),
  timeout_s: timeoutField,
});

export const bashTool = builtinTool({
  name: 'bash',
  traits: ['runs_code'],
  description:
    'Run a bash command in a sandbox whose working folder is the workspace (/workspace). No network. A person approves each call; explain why you need it.',
  args: bashArgs,
  approval: 'required',
  describeCall: (args) => args.command,
  run: (args, context) => {
    const timeoutS = args.timeout_s ?? SHELL_DEFAULT_TIMEOUT_S;
    return runInSandbox(['bash', '--noprofile', '--norc', '-c', args.command], timeoutS, context);
  },
});

const pythonArgs = z.strictObject({
  code: z.string().min(1).max(SOURCE_CAP_CHARS).describe('Python 3 source to run in the workspace'),
  explanation: z.string().max(2_000).optional().describe('What the code does and why, for the person approving it'),
  timeout_s: timeoutField,
});

export const pythonTool = builtinTool({
  name: 'python',
  traits: ['runs_code'],
  description:
    'Run Python 3 code in a sandbox whose working folder is the workspace (/workspace). No network. A person approves each call; explain why you need it.',
  args: pythonArgs,
  approval: 'required',
  describeCall: (args) => args.code,
  run: (args, context) => {
    const timeoutS = args.timeout_s ?? SHELL_DEFAULT_TIMEOUT_S;
    return runInSandbox(['python3', '-I', '-c', args.code], timeoutS, context);
  },
});

export const shellTools = [bashTool, pythonTool];
