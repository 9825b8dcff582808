// Built-in file tools: read, write, edit, list and grep inside the session's workspace. They
// run in the app's process (no sandbox needed) through workspace.ts, which refuses any path
// that leads outside; writes stay inside the workspace and need no approval by default.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { bareEnvironment } from '@/lib/tools/sandbox';
import { builtinTool, errorOutcome, type ToolOutcome } from '@/lib/tools/tool-types';
import {
  WorkspacePathError,
  displayPath,
  readInside,
  realPathInside,
  resolveWorkspacePath,
  writeInside,
} from '@/lib/tools/workspace';

const READ_CAP_BYTES = 256 * 1024;
const WRITE_CAP_BYTES = 8 * 1024 * 1024;
const LIST_CAP_ENTRIES = 500;
const GREP_CAP_BYTES = 64 * 1024;
const GREP_TIMEOUT_MS = 10_000;
const GREP_MAX_FILES = 20_000;
const GREP_FILES_PER_RUN = 500;

/** Path errors become the tool's error result, in words the model can act on. */
async function guarded(run: () => Promise<ToolOutcome> | ToolOutcome): Promise<ToolOutcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WorkspacePathError) return errorOutcome(`Refused: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return errorOutcome('Refused: the path is a symbolic link');
    if (code === 'ENOENT') return errorOutcome('No such file or folder');
    if (code === 'EISDIR') return errorOutcome('That is a folder, not a file');
    return errorOutcome(`Failed: ${(error as Error).message}`);
  }
}

const readFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
  limit: z.number().int().min(1).max(10_000).optional().describe('How many lines to return'),
});

export const readFileTool = builtinTool({
  name: 'read_file',
  description:
    'Read a text file from the workspace. Returns its lines prefixed with their numbers. Use offset and limit for long files.',
  args: readFileArgs,
  describeCall: (args) => args.path,
  run: (args, context) =>
    guarded(() => {
      const { text, size, truncated } = readInside(context.workspaceDir, args.path, READ_CAP_BYTES);
      const lines = text.split('\n');
      const first = (args.offset ?? 1) - 1;
      const chosen = lines.slice(first, args.limit ? first + args.limit : undefined);
      const numbered = chosen.map((line, index) => `${String(first + index + 1).padStart(6)}\t${line}`).join('\n');
      const notes: string[] = [];
      if (truncated) notes.push(`[the file has ${size} bytes; only the first ${READ_CAP_BYTES} were read]`);
      if (chosen.length === 0) notes.push(`[no lines from ${first + 1}: the file has ${lines.length}]`);
      return { isError: false, content: [numbered, ...notes].filter(Boolean).join('\n') };
    }),
});

const writeFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace; missing folders are created'),
  content: z.string().max(WRITE_CAP_BYTES).describe('The whole new content of the file'),
});

export const writeFileTool = builtinTool({
  name: 'write_file',
  description: 'Create or overwrite a file in the workspace with the given content.',
  args: writeFileArgs,
  describeCall: (args) => args.path,
  run: (args, context) =>
    guarded(() => {
      const { absolute, created } = writeInside(context.workspaceDir, args.path, args.content);
      const bytes = Buffer.byteLength(args.content);
      return {
        isError: false,
        content: `${created ? 'Created' : 'Overwrote'} ${displayPath(context.workspaceDir, absolute)} (${bytes} bytes)`,
      };
    }),
});

const editFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace'),
  old_string: z.string().min(1).describe('Exact text to replace; must occur once unless replace_all'),
  new_string: z.string().describe('Replacement text'),
  replace_all: z.boolean().optional().describe('Replace every occurrence'),
});

export const editFileTool = builtinTool({
  name: 'edit_file',
  description:
    'Replace exact text in a workspace file. old_string must match exactly once (or set replace_all).',
  args: editFileArgs,
  describeCall: (args) => args.path,
  run: (args, context) =>
    guarded(() => {
      const { text, truncated } = readInside(context.workspaceDir, args.path, WRITE_CAP_BYTES);
      if (truncated) return errorOutcome('The file is too large to edit here');
      const occurrences = text.split(args.old_string).length - 1;
      if (occurrences === 0) return errorOutcome('old_string was not found in the file; nothing changed');
      if (occurrences > 1 && !args.replace_all) {
        return errorOutcome(`old_string occurs ${occurrences} times; give more context or set replace_all`);
      }
      const next = args.replace_all
        ? text.split(args.old_string).join(args.new_string)
        : text.replace(args.old_string, () => args.new_string);
      writeInside(context.workspaceDir, args.path, next);
      return { isError: false, content: `Edited ${args.path}: ${args.replace_all ? occurrences : 1} replacement(s)` };
    }),
});

const listFilesArgs = z.strictObject({
  path: z.string().optional().describe('Folder relative to the workspace (default: the workspace)'),
  recursive: z.boolean().optional().describe('Include sub-folders'),
});

export const listFilesTool = builtinTool({
  name: 'list_files',
  description: 'List the files and folders in a workspace folder (folders end with /).',
  args: listFilesArgs,
  describeCall: (args) => args.path ?? '.',
  run: (args, context) =>
    guarded(() => {
      const root = context.workspaceDir;
      const start = realPathInside(root, resolveWorkspacePath(root, args.path ?? '.'), args.path ?? '.');
      if (!fs.statSync(start).isDirectory()) return errorOutcome(`${args.path} is not a folder`);
      const entries: string[] = [];
      let more = false;
      const walk = (folder: string) => {
        for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
          if (entries.length >= LIST_CAP_ENTRIES) {
            more = true;
            return;
          }
          const absolute = path.join(folder, entry.name);
          const shown = displayPath(root, absolute);
          if (entry.isSymbolicLink()) entries.push(`${shown} -> (symbolic link)`);
          else if (entry.isDirectory()) {
            entries.push(`${shown}/`);
            if (args.recursive) walk(absolute); // readdir does not follow symlinks
          } else entries.push(shown);
        }
      };
      walk(start);
      if (entries.length === 0) return { isError: false, content: '(empty)' };
      return { isError: false, content: entries.join('\n') + (more ? `\n[more than ${LIST_CAP_ENTRIES} entries; narrow the path]` : '') };
    }),
});

const grepArgs = z.strictObject({
  pattern: z.string().min(1).max(1_000).describe('Extended regular expression (grep -E)'),
  path: z.string().optional().describe('File or folder relative to the workspace (default: all of it)'),
  ignore_case: z.boolean().optional(),
});

export const grepTool = builtinTool({
  name: 'grep',
  description: 'Search workspace files for a regular expression; returns path:line:text for each match.',
  args: grepArgs,
  describeCall: (args) => `${args.pattern} in ${args.path ?? '.'}`,
  run: (args, context) =>
    guarded(async () => {
      const root = context.workspaceDir;
      const target = realPathInside(root, resolveWorkspacePath(root, args.path ?? '.'), args.path ?? '.');
      const files = searchableFiles(root, target);
      if (files.length === 0) return { isError: false, content: 'No matches (no readable files there)', exitCode: 1 };
      let output = '';
      for (let start = 0; start < files.length && output.length <= GREP_CAP_BYTES; start += GREP_FILES_PER_RUN) {
        output += await grepFiles(root, args, files.slice(start, start + GREP_FILES_PER_RUN), context.signal);
      }
      if (!output) return { isError: false, content: 'No matches', exitCode: 1 };
      const text = output.length > GREP_CAP_BYTES ? `${output.slice(0, GREP_CAP_BYTES)}\n[output cut at ${GREP_CAP_BYTES} bytes]` : output;
      return { isError: false, content: text, exitCode: 0 };
    }),
});

/**
 * The regular files grep may read: no symlinks followed, no file with another hard link (it
 * could be a file outside), sorted so results are stable.
 */
function searchableFiles(root: string, target: string): string[] {
  const stat = fs.lstatSync(target);
  if (stat.isFile()) return stat.nlink === 1 ? [displayPath(root, target)] : [];
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= GREP_MAX_FILES) return;
      const absolute = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(absolute);
      else if (entry.isFile() && fs.lstatSync(absolute).nlink === 1) found.push(displayPath(root, absolute));
    }
  };
  walk(target);
  return found;
}

/** GNU grep (an automaton: no catastrophic backtracking) on named files, argv only, no shell. */
function grepFiles(root: string, args: z.infer<typeof grepArgs>, files: string[], signal: AbortSignal): Promise<string> {
  const argv = ['-nHI', '--color=never', '-E', ...(args.ignore_case ? ['-i'] : []), '-e', args.pattern, '--', ...files];
  return new Promise((resolve, reject) => {
    execFile(
      'grep',
      argv,
      { cwd: root, timeout: GREP_TIMEOUT_MS, maxBuffer: GREP_CAP_BYTES * 4, env: bareEnvironment({ PATH: '/usr/bin:/bin', LC_ALL: 'C.UTF-8' }), signal, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error && typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : error ? -1 : 0;
        if (code === 0 || code === 1 || stdout) return resolve(stdout);
        reject(new Error(`grep failed: ${(stderr || (error as Error).message).trim().slice(0, 500)}`));
      },
    );
  });
}

export const fileTools = [readFileTool, writeFileTool, editFileTool, listFilesTool, grepTool];
