import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileSystemWords } from '../runtime/files/index.js';
import { CliError } from './cli-error.js';

/** The exit status of an output the command cannot write (as for bad usage: the path given cannot be used). */
export const OUTPUT_EXIT = 2;


/** A Node.js file-system error (it names a system call and a path). */
function errnoError(e: unknown): NodeJS.ErrnoException | undefined {
  for (let at: unknown = e, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const x = at as NodeJS.ErrnoException;
    if (typeof x.code === 'string' && typeof x.syscall === 'string' && typeof x.path === 'string') return x;
  }
  return undefined;
}

/** What went wrong, in words: "permission denied", "it is a folder", ... (the code itself when unlisted). */
export function fileSystemReason(e: NodeJS.ErrnoException, file: string): string {
  if (e.code === 'ENOENT') return `the folder ${path.dirname(file)} does not exist`;
  return fileSystemWords(e);
}

/**
 * The one-line error for a file-system failure anywhere in `e` (or its causes): "cannot write
 * <path>: <reason>", or undefined when `e` is no such failure. A rename names its destination.
 */
export function fileSystemError(e: unknown): CliError | undefined {
  const x = errnoError(e);
  if (!x) return undefined;
  const file = (x as { dest?: unknown }).dest;
  const target = typeof file === 'string' ? file : x.path!;
  const verb = x.syscall === 'mkdir' ? 'create the folder' : x.syscall === 'open' || x.syscall === 'rename' || x.syscall === 'write' || x.syscall === 'copyfile' ? 'write' : x.syscall;
  return new CliError(`cannot ${verb} ${target}: ${fileSystemReason(x, target)}`, OUTPUT_EXIT);
}

/** The nearest existing ancestor of `dir` (or `dir` itself) when it is a file, not a folder. */
async function fileInTheWay(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = path.dirname(at)) {
    const info = await stat(at).catch(() => undefined);
    if (info) return info.isDirectory() ? undefined : at;
    if (path.dirname(at) === at) return undefined;
  }
}

/** Creates an output folder (and its parents), or stops with "cannot create the output folder <dir>: <reason>". */
export async function makeOutputFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (e) {
    const x = errnoError(e);
    if (!x) throw e;
    const blocker = x.code === 'EEXIST' || x.code === 'ENOTDIR' ? await fileInTheWay(dir) : undefined;
    throw new CliError(`cannot create the output folder ${dir}: ${blocker ? `${blocker} is a file, not a folder` : fileSystemReason(x, dir)}`, OUTPUT_EXIT);
  }
}

/**
 * Checks before the work starts that `file` can be written: not a folder, its folder exists and
 * is writable. Stops with "cannot write <file>: <reason>".
 */
export async function checkOutputFile(file: string): Promise<void> {
  const refuse = (reason: string): never => {
    throw new CliError(`cannot write ${file}: ${reason}`, OUTPUT_EXIT);
  };
  if (file === '') refuse('no file name');
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) refuse('it is a folder');
  const folder = path.dirname(file);
  const parent = await stat(folder).catch((e: NodeJS.ErrnoException) => e);
  if (parent instanceof Error) refuse(parent.code === 'ENOENT' ? `the folder ${folder} does not exist` : fileSystemReason(parent, folder));
  else if (!parent.isDirectory()) refuse(`${folder} is a file, not a folder`);
  await access(info ? file : folder, constants.W_OK).catch((e: NodeJS.ErrnoException) => refuse(fileSystemReason(e, file)));
}

/**
 * Why `file` cannot be read as a file, in words ("it is a folder", "afile is a file, not a
 * folder"), or undefined when it can be tried (also when it does not exist: the reader says so).
 */
export async function inputFileProblem(file: string): Promise<string | undefined> {
  const info = await stat(file).catch((e: NodeJS.ErrnoException) => e);
  if (!(info instanceof Error)) return info.isDirectory() ? 'it is a folder, not a file' : undefined;
  if (info.code === 'ENOENT') return undefined;
  const blocker = info.code === 'ENOTDIR' ? await fileInTheWay(path.dirname(file)) : undefined;
  return blocker ? `${blocker} is a file, not a folder` : fileSystemWords(info);
}

/** Why `dir` cannot be used (or made) as a folder, in words, or undefined when it can be tried. */
export async function folderProblem(dir: string): Promise<string | undefined> {
  const info = await stat(dir).catch((e: NodeJS.ErrnoException) => e);
  if (!(info instanceof Error)) return info.isDirectory() ? undefined : 'it is a file, not a folder';
  if (info.code === 'ENOENT') {
    const blocker = await fileInTheWay(path.dirname(dir));
    return blocker ? `${blocker} is a file, not a folder` : undefined;
  }
  const blocker = info.code === 'ENOTDIR' ? await fileInTheWay(path.dirname(dir)) : undefined;
  return blocker ? `${blocker} is a file, not a folder` : fileSystemWords(info);
}
