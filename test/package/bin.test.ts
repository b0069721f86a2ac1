// bin/twinchain.js picks what it runs: the bundled CLI in dist/bundle/, else the compiled dist/,
// or in a clone the TypeScript sources through tsx when dist/ is missing or older than src/. Checked on a stand-in package whose
// dist/ and src/ mains say which one ran. And `--help` stays cheap: the CLI's entry module
// imports (statically) nothing but its own small modules; every command is imported on use.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagesOf, staticReach } from '../../src/import-graph.test-helper.js';
import { PINNED } from '../scenarios/library.test-helper.js';
import { PLAIN_PROGRESS_LINE } from '../../src/cli/progress-text.js';
// @ts-expect-error: plain JavaScript without declarations
import { whatToRun } from '../../bin/dist-freshness.js';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBin(root: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin', 'twinchain.js'), 'x'], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('bin/twinchain.js: compiled dist/ or the sources', () => {
  let root: string;
  const past = new Date(Date.now() - 60_000);
  const now = new Date();

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'twinchain-bin-'));
    await mkdir(path.join(root, 'bin'));
    for (const file of ['twinchain.js', 'dist-freshness.js']) await copyFile(path.join(ROOT, 'bin', file), path.join(root, 'bin', file));
    await copyFile(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
    await symlink(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function layout(parts: { dist?: Date; src?: Date; bundle?: boolean }): Promise<void> {
    await rm(path.join(root, 'dist'), { recursive: true, force: true });
    await rm(path.join(root, 'src'), { recursive: true, force: true });
    if (parts.dist) {
      await mkdir(path.join(root, 'dist', 'cli'), { recursive: true });
      await writeFile(path.join(root, 'dist', 'cli', 'main.js'), "export async function main(argv) { console.log('dist', argv.join(' ')); return 0; }\n");
      await writeFile(path.join(root, 'dist', '.built'), '');
      await utimes(path.join(root, 'dist', '.built'), parts.dist, parts.dist);
    }
    if (parts.bundle) {
      await mkdir(path.join(root, 'dist', 'bundle'), { recursive: true });
      await writeFile(path.join(root, 'dist', 'bundle', 'main.js'), "export async function main(argv) { console.log('bundle', argv.join(' ')); return 0; }\n");
    }
    if (parts.src) {
      await mkdir(path.join(root, 'src', 'cli'), { recursive: true });
      const main = path.join(root, 'src', 'cli', 'main.ts');
      await writeFile(main, "export async function main(argv: string[]): Promise<number> { console.log('src', argv.join(' ')); return 0; }\n");
      // a test file newer than the build does not make dist/ stale
      await writeFile(path.join(root, 'src', 'cli', 'main.test.ts'), '');
      for (const p of [main, path.join(root, 'src', 'cli'), path.join(root, 'src')]) await utimes(p, parts.src, parts.src);
    }
  }

  it('runs dist/ when it was built after every source', async () => {
    await layout({ dist: now, src: past });
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'dist x\n' });
  });

  it('runs the bundle in dist/bundle/ where the build made one', async () => {
    await layout({ dist: now, src: past, bundle: true });
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'bundle x\n' });
    await layout({ dist: past, bundle: true });
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'bundle x\n' });
  });

  it('runs the sources, not a stale bundle, when a source file is newer than the build', async () => {
    await layout({ dist: past, src: past, bundle: true });
    await utimes(path.join(root, 'src', 'cli', 'main.ts'), now, now);
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'src x\n' });
  });

  it('runs the sources through tsx when a source file is newer than the build', async () => {
    await layout({ dist: past, src: past });
    const main = path.join(root, 'src', 'cli', 'main.ts');
    await utimes(main, now, now);
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'src x\n' });
  });

  it('runs the sources through tsx when a file was added to or removed from a source folder', async () => {
    await layout({ dist: past, src: past });
    await utimes(path.join(root, 'src', 'cli'), now, now);
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'src x\n' });
  });

  it('runs the sources when there is no build', async () => {
    await layout({ src: past });
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'src x\n' });
  });

  it('runs dist/ without looking for sources or tsx in an installed package (no src/)', async () => {
    await layout({ dist: past });
    expect(await runBin(root)).toMatchObject({ code: 0, stdout: 'dist x\n' });
  });

  it('says in one line what is missing when there is neither', async () => {
    await layout({});
    const r = await runBin(root);
    expect(r.code).toBe(70);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('dist/ is missing');
  });
});

describe('twinchain --help loads no command', () => {
  it("src/cli/main.ts reaches only the CLI's own small modules and Node built-ins", () => {
    const { files, external } = staticReach(path.join(ROOT, 'src', 'cli', 'main.ts'));
    expect(files.map((f) => path.relative(ROOT, f))).toEqual([
      // the benchmark registry, for `bench --help`: names and descriptions, every benchmark a lazy import
      'src/bench/index.ts',
      'src/cli/cli-error.ts',
      'src/cli/commands.ts',
      'src/cli/io.ts',
      'src/cli/main.ts',
      'src/cli/output-path.ts',
      'src/runtime/files/file-system-words.ts',
      'src/runtime/files/index.ts',
    ]);
    expect(packagesOf(external)).toEqual([]);
  });
});

describe('the bundled CLI in dist/bundle/, as npm run build made it', () => {
  // Run directly, not through bin/: on a developer's machine with edited sources bin/ would run
  // those instead. A bundle older than the sources may differ from them: then this waits for a build.
  const built = existsSync(path.join(ROOT, 'dist', 'bundle', 'main.js')) && whatToRun(ROOT) === 'dist';
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(path.join(tmpdir(), 'twinchain-bundle-'));
  });
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  // a script file, not --input-type=module -e: worker threads inherit the process's options
  async function runBundle(args: string[]): Promise<Ran> {
    const script = path.join(out, 'run-bundle.mjs');
    await writeFile(script, `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'main.js')).href)});\nprocess.exitCode = await main(process.argv.slice(2));\n`);
    return new Promise((resolve) => {
      execFile(process.execPath, [script, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
    });
  }

  const name = 'runs a scenario to its pinned digest with its report, swarm workers, and a replay with crypto workers';
  it.skipIf(!built)(built ? name : `${name} (skipped: no build of the current sources; npm run build)`, async () => {
    const run = await runBundle(['run', 'scenarios/pbft-slow-network.yaml', '--quiet', '--out', path.join(out, 'run')]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const summary = JSON.parse(await readFile(path.join(out, 'run', 'summary.json'), 'utf8')) as { traceDigest: string };
    expect(summary.traceDigest).toBe(PINNED['pbft-slow-network.yaml']);
    // the report's page script and style, read from beside the module that embeds them
    expect((await readFile(path.join(out, 'run', 'report.html'), 'utf8')).length).toBeGreaterThan(100_000);

    const swarm = await runBundle(['swarm', 'scenarios/pbft-swarm.yaml', '--seeds', '2', '--jobs', '2', '--out', path.join(out, 'swarm')]);
    expect(swarm).toMatchObject({ code: 0, stderr: '' });
    expect(swarm.stdout).toContain('all 2 seeds passed');

    const replay = await runBundle(['replay', 'fixtures/chains/pbft-ecdsa-earlier.jsonl.gz']);
    expect(replay.code, replay.stderr).toBe(0);
    // off a terminal replay writes a progress line every 5 s (a loaded machine takes that long), and nothing else
    expect(replay.stderr.split('\n').filter((line) => line !== '' && !PLAIN_PROGRESS_LINE.test(line))).toEqual([]);
    expect(replay.stdout).toMatch(/^replay \S+: PASS, \d+ blocks/);
  }, 120_000);
});
