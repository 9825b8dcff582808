// Built-in file tools: read, write, edit, list and grep inside the session's workspace. They
// run in the app's process (no sandbox needed) through workspace.ts, which refuses any path
// that leads outside; writes stay inside the workspace and need no approval by default. Every
// file and folder is opened by descriptors (workspace-descriptors.ts), never by a name checked
// earlier: a sandboxed process swapping folders for symlinks cannot steer a walk outside.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { bareEnvironment } from '@/lib/tools/sandbox';
import { builtinTool, errorOutcome, type ToolOutcome } from '@/lib/tools/tool-types';
import {
  WorkspacePathError,
  displayPath,
  openRealBeneath,
  readInside,
  realPathInside,
  resolveWorkspacePath,
  writeInside,
} from '@/lib/tools/workspace';
import {
  DIRECTORY_FLAGS,
  READ_FILE_FLAGS,
  closeQuietly,
  descriptorPath,
  isLinkRefusal,
  openAt,
  openBeneath,
  readDirectory,
} from '@/lib/tools/workspace-descriptors';
import { errorText } from '@/lib/errors/error-text';

const READ_CAP_BYTES = 256 * 1024;
const WRITE_CAP_BYTES = 8 * 1024 * 1024;
const LIST_CAP_ENTRIES = 500;
const GREP_CAP_BYTES = 64 * 1024;
const GREP_TIMEOUT_MS = 10_000;
const GREP_MAX_FILES = 20_000;
// Each file of a run is an open descriptor handed to grep: a few hundred stays far under any fd limit.
const GREP_FILES_PER_RUN = 200;

/** Path errors become the tool's error result, in words the model can act on. */
export async function guarded(run: () => Promise<ToolOutcome> | ToolOutcome): Promise<ToolOutcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WorkspacePathError) return errorOutcome(`Refused: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return errorOutcome('Refused: the path is a symbolic link');
    if (code === 'ENOENT') return errorOutcome('No such file or folder');
    if (code === 'EISDIR') return errorOutcome('That is a folder, not a file');
    return errorOutcome(`Failed: ${errorText(error)}`);
  }
}

const readFileArgs = z.strictObject({
  path: z.string().min(1).describe('File path relative to the workspace'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
  limit: z.number().int().min(1).max(10_000).optional().describe('How many lines to return'),
});

export const readFileTool = builtinTool({
  name: 'read_file',
  traits: ['read_only'],
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
  traits: ['writes_files'],
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
  traits: ['writes_files'],
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
  traits: ['read_only'],
  description: 'List the files and folders in a workspace folder (folders end with /).',
  args: listFilesArgs,
  describeCall: (args) => args.path ?? '.',
  run: (args, context) =>
    guarded(() => {
      const root = context.workspaceDir;
      const requested = args.path ?? '.';
      if (!fs.statSync(realPathInside(root, resolveWorkspacePath(root, requested), requested)).isDirectory()) {
        return errorOutcome(`${requested} is not a folder`);
      }
      const { fd } = openRealBeneath(root, requested, DIRECTORY_FLAGS);
      const entries: string[] = [];
      let more = false;
      // Each folder is read through its open descriptor and each sub-folder opened from it with
      // O_NOFOLLOW: a folder swapped for a symlink mid-walk is not entered.
      const walk = (folderFd: number, shownFolder: string) => {
        for (const entry of readDirectory(folderFd)) {
          if (entries.length >= LIST_CAP_ENTRIES) {
            more = true;
            return;
          }
          const shown = shownFolder === '.' ? entry.name : `${shownFolder}/${entry.name}`;
          if (entry.isSymbolicLink()) entries.push(`${shown} -> (symbolic link)`);
          else if (entry.isDirectory()) {
            entries.push(`${shown}/`);
            if (args.recursive) withChildFolder(folderFd, entry.name, (childFd) => walk(childFd, shown));
          } else entries.push(shown);
        }
      };
      try {
        walk(fd, displayPath(root, descriptorPath(fd)));
      } finally {
        closeQuietly(fd);
      }
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
  traits: ['read_only'],
  description: 'Search workspace files for a regular expression; returns path:line:text for each match.',
  args: grepArgs,
  describeCall: (args) => `${args.pattern} in ${args.path ?? '.'}`,
  run: (args, context) =>
    guarded(async () => {
      const root = context.workspaceDir;
      const files = searchableFiles(root, args.path ?? '.');
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
 * The regular files grep may read, as paths below the root (real folders only: the walk opens
 * each folder from its parent's descriptor and never follows a symlink), sorted so results are
 * stable. Each is opened again by descriptors when it is searched (grepFiles).
 */
function searchableFiles(root: string, requested: string): string[] {
  const real = realPathInside(root, resolveWorkspacePath(root, requested), requested);
  const relative = path.relative(root, real);
  if (!fs.lstatSync(real).isDirectory()) return [relative];
  const found: string[] = [];
  const walk = (folderFd: number, folder: string) => {
    for (const entry of readDirectory(folderFd)) {
      if (found.length >= GREP_MAX_FILES) return;
      const below = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) withChildFolder(folderFd, entry.name, (childFd) => walk(childFd, below));
      else if (entry.isFile()) found.push(below);
    }
  };
  const { fd } = openRealBeneath(root, requested, DIRECTORY_FLAGS);
  try {
    walk(fd, relative);
  } finally {
    closeQuietly(fd);
  }
  return found;
}

/** Calls `use` with a sub-folder opened from its parent's descriptor; a symlink or a vanished entry is skipped. */
function withChildFolder(parentFd: number, name: string, use: (childFd: number) => void): void {
  let childFd: number;
  try {
    childFd = openAt(parentFd, name, DIRECTORY_FLAGS);
  } catch (error) {
    if (isLinkRefusal(error) || (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    use(childFd);
  } finally {
    closeQuietly(childFd);
  }
}

/**
 * Opens each file by descriptors from the root (O_NOFOLLOW at every segment) and keeps those
 * that are regular files with a single link; a file swapped for a symlink is skipped.
 */
function openSearchable(root: string, files: string[]): { fd: number; shown: string }[] {
  const opened: { fd: number; shown: string }[] = [];
  for (const file of files) {
    let fd: number;
    try {
      fd = openBeneath(root, file, READ_FILE_FLAGS);
    } catch (error) {
      if (isLinkRefusal(error) || (error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      for (const { fd: open } of opened) closeQuietly(open);
      throw error;
    }
    const stat = fs.fstatSync(fd);
    // A hard link shares its inode with a name we cannot see: it may be a file outside.
    if (stat.isFile() && stat.nlink === 1) opened.push({ fd, shown: file });
    else closeQuietly(fd);
  }
  return opened;
}

/**
 * GNU grep (an automaton: no catastrophic backtracking), argv only, no shell — on descriptors
 * we opened and checked, handed to it as /dev/fd/N: grep resolves no workspace name at all.
 */
async function grepFiles(root: string, args: z.infer<typeof grepArgs>, files: string[], signal: AbortSignal): Promise<string> {
  const opened = openSearchable(root, files);
  if (opened.length === 0) return '';
  const firstFd = 3;
  const shownByFd = new Map(opened.map((file, index) => [`/dev/fd/${firstFd + index}`, file.shown]));
  const argv = ['-nHI', '--color=never', '-E', ...(args.ignore_case ? ['-i'] : []), '-e', args.pattern, '--', ...shownByFd.keys()];
  try {
    const stdout = await runGrep(argv, opened.map((file) => file.fd), signal);
    // Each line starts with the name grep was given: put the workspace path back in its place.
    return stdout.replace(/^(\/dev\/fd\/\d+):/gm, (whole, name: string) => `${shownByFd.get(name) ?? name}:`);
  } finally {
    for (const { fd } of opened) closeQuietly(fd);
  }
}

function runGrep(argv: string[], fds: number[], signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('grep', argv, {
      stdio: ['ignore', 'pipe', 'pipe', ...fds],
      env: bareEnvironment({ PATH: '/usr/bin:/bin', LC_ALL: 'C.UTF-8' }),
      signal,
      timeout: GREP_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length <= GREP_CAP_BYTES * 4) stdout += chunk;
      else child.kill('SIGKILL');
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ABORT_ERR') reject(error);
    });
    child.on('close', (code) => {
      if (code === 0 || code === 1 || stdout) return resolve(stdout);
      if (signal.aborted) return resolve('');
      reject(new Error(`grep failed: ${(stderr || `exit ${code}`).trim().slice(0, 500)}`));
    });
  });
}

export const fileTools = [readFileTool, writeFileTool, editFileTool, listFilesTool, grepTool];
