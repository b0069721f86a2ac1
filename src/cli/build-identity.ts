import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TwinchainBuild } from '../sim/index.js';
import { packageRoot } from '../package-root.js';

/** The package root, with a trailing separator. */
const ROOT = `${packageRoot()}${path.sep}`;

/** Names the commit of a build that has no git checkout (a container image: docker build --build-arg TWINCHAIN_COMMIT=…). */
export const COMMIT_VARIABLE = 'TWINCHAIN_COMMIT';

const run = promisify(execFile);

async function git(args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', ROOT, ...args], { timeout: 10_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch {
    return undefined;
  }
}

/**
 * The commit of a git checkout, with `-dirty.<hash>` when tracked files differ from it (the hash
 * of `git diff HEAD`, so two different sets of edits are two different builds); undefined
 * outside a checkout or without git.
 */
async function checkoutCommit(): Promise<string | undefined> {
  if (!existsSync(path.join(ROOT, '.git'))) return undefined;
  const head = (await git(['rev-parse', 'HEAD']))?.trim();
  if (!head || !/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  const diff = await git(['diff', 'HEAD', '--no-ext-diff', '--binary']);
  if (diff === undefined) return undefined;
  return diff === '' ? head : `${head}-dirty.${createHash('sha256').update(diff).digest('hex').slice(0, 12)}`;
}

let cached: Promise<TwinchainBuild> | undefined;

/** This Twinchain's version (package.json) and commit ($TWINCHAIN_COMMIT, else the checkout's; null when neither is known). */
export function twinchainBuild(env: NodeJS.ProcessEnv = process.env): Promise<TwinchainBuild> {
  const given = env[COMMIT_VARIABLE]?.trim();
  if (given) return readVersion().then((version) => ({ version, commit: given }));
  cached ??= Promise.all([readVersion(), checkoutCommit()]).then(([version, commit]) => ({ version, commit: commit ?? null }));
  return cached;
}

async function readVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
