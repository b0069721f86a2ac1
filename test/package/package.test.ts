// The package as a user gets it: `npm pack` on a copy of the repository, the tarball installed
// into an empty folder, then the installed `twinchain` run there (help, a scenario the package
// ships, a swarm on worker threads) and the public API imported by its package name, from
// JavaScript and typechecked from TypeScript.
// Skips only when the npm registry cannot be reached for the dependencies.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** What a fresh clone holds that packing needs (never dist/, reports/ or node_modules/). */
const FOLDERS = ['bin', 'src', 'scenarios', 'fixtures', 'docs', 'scripts', 'native'];
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE'];
const STEP_MS = 240_000;
/** bin/dist-freshness.js, the check bin/twinchain.js makes between dist/ and the sources. */
const distFreshness = () => import(pathToFileURL(path.join(ROOT, 'bin', 'dist-freshness.js')).href) as Promise<{ whatToRun(root: string): 'sources' | 'dist' }>;
const NETWORK = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b|network request .* failed/i;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeout = 60_000): Promise<Ran> {
  // npm settings of an enclosing `npm test` (npm_config_*, npm_package_*) must not steer the child npm
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle|config_(prefix|global|dry_run|save|omit|include))/i.test(k)));
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, killSignal: 'SIGKILL', maxBuffer: 32 << 20, env: { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr: error && code === null ? `${stderr}\n${error.message}` : stderr });
    });
  });
}

function explain(what: string, r: Ran): string {
  return `${what} exited with ${String(r.code)}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

const SMALL_SCENARIO = `name: package-small
seed: 3
duration: 5s
chain:
  nodes: 4
groups:
  - id: 1
    consensus: pbft
    sealers: 4
workloads:
  - { kind: helloworld, rate: 5 }
`;

// Imports each entry point by the package's name and uses it: a two-node simulation, the
// scenario runner, a dev server's JSON-RPC and the conformance suite against it.
const API_SCRIPT = `import { Simulation, startDevServer } from 'twinchain/simulation';
import { createRpcService, inProcessClient, JsonRpcClient } from 'twinchain/rpc';
import { loadScenarioFile, runScenario } from 'twinchain/scenario';
import { runConformance } from 'twinchain/conformance';
import * as root from 'twinchain';

const sim = new Simulation({ seed: 'package-test' });
const ids = {};
let received = 0;
for (const [name, peer] of [['a', 'b'], ['b', 'a']]) {
  ids[name] = sim.addNode(name, (env) => {
    env.transport.onReceive(() => void received++);
    env.clock.setTimer(10, () => env.transport.send(ids[peer], new Uint8Array([1])));
    return {};
  }).nodeId;
}
const simulated = await sim.run({ until: 1000 });
const scenario = await runScenario(await loadScenarioFile('small.yaml'));
const dev = await startDevServer({ nodes: 1, rpcPort: 0 });
let rpc, conformance;
try {
  rpc = (await new JsonRpcClient(dev.endpoints[0].url).request('getBlockNumber', [1])).result;
  const report = await runConformance({ url: dev.endpoints[0].url });
  conformance = { passed: report.passed, failed: report.failed };
} finally {
  await dev.close();
}
const names = ['Simulation', 'checkDeterminism', 'SimChain', 'startDevServer', 'createRpcService', 'startHttpServer', 'inProcessClient',
  'JsonRpcClient', 'loadScenarioFile', 'runScenario', 'writeRunOutputs', 'formatSummary', 'runConformance', 'formatReport'];
console.log(JSON.stringify({
  received, reason: simulated.reason, scenario: scenario.verdict, blocks: scenario.totals.blocks, rpc, conformance,
  functions: typeof createRpcService === 'function' && typeof inProcessClient === 'function',
  rootMissing: names.filter((n) => typeof root[n] !== 'function'),
}));
`;

// Typechecked against the installed declarations: the names resolve with their real types.
const TYPES_SCRIPT = `import { Simulation, type SimulationOptions, type DevServer } from 'twinchain/simulation';
import { createRpcService, type RpcService } from 'twinchain/rpc';
import { runScenario, type ScenarioResult } from 'twinchain/scenario';
import { runConformance, type ConformanceReport } from 'twinchain/conformance';
import { SimChain } from 'twinchain';

const options: SimulationOptions = { seed: 'types' };
export const sim: Simulation<unknown> = new Simulation(options);
export const service: (typeof createRpcService extends (...a: never[]) => RpcService ? true : false) = true;
export const run: typeof runScenario extends (...a: never[]) => Promise<ScenarioResult> ? true : false = true;
export const conform: typeof runConformance extends (...a: never[]) => Promise<ConformanceReport> ? true : false = true;
export type Chain = SimChain;
export type Dev = DevServer;
// @ts-expect-error a report is not a number: the declarations are real types, not any
export const wrong: ConformanceReport = 42;
`;

describe('the npm package: packed, installed into an empty folder, run there', () => {
  let work: string;
  let app: string;
  let installed: string;
  let twinchain: string;
  let skipReason: string | undefined;
  /** The tarball's files, as `npm pack --json` listed them. */
  let packedFiles: string[];

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'twinchain-package-'));
    const clone = path.join(work, 'clone');
    for (const folder of FOLDERS) await cp(path.join(ROOT, folder), path.join(clone, folder), { recursive: true });
    for (const file of FILES) await copyFile(path.join(ROOT, file), path.join(clone, file));
    await symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
    // A dist/ built from the sources as they are (npm ci's prepare, or npm run build) is what
    // prepare would build again (half a minute of the suite's two cores): it is packed as it is.
    // Otherwise the copy has no dist/, and npm pack's prepare must build it.
    const built = (await distFreshness()).whatToRun(ROOT) === 'dist';
    if (built) await cp(path.join(ROOT, 'dist'), path.join(clone, 'dist'), { recursive: true });
    const packed = await run('npm', ['pack', '--json', ...(built ? ['--ignore-scripts'] : []), '--pack-destination', work], clone, STEP_MS);
    if (packed.code !== 0) throw new Error(explain(built ? 'npm pack' : 'npm pack (prepare builds dist/)', packed));
    const [pack] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = path.join(work, pack!.filename);
    packedFiles = pack!.files.map((f) => f.path);

    app = path.join(work, 'app');
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), `${JSON.stringify({ name: 'twinchain-package-test', private: true, type: 'module' })}\n`);
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app, STEP_MS);
    if (install.code !== 0) {
      if (NETWORK.test(install.stderr)) {
        skipReason = `the npm registry cannot be reached for the dependencies (${NETWORK.exec(install.stderr)![0]})`;
        console.warn(`package test SKIPPED: ${skipReason}`);
        return;
      }
      throw new Error(explain('npm install <tarball>', install));
    }
    installed = path.join(app, 'node_modules', 'twinchain');
    twinchain = path.join(app, 'node_modules', '.bin', 'twinchain');
    await writeFile(path.join(app, 'small.yaml'), SMALL_SCENARIO);
  }, 2 * STEP_MS + 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('ships the compiled code, declarations, scenarios, contracts and the licence, and no tests or sources', (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    expect(existsSync(path.join(installed, 'dist', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(path.join(installed, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(path.join(installed, 'dist', 'report', 'report-page.css'))).toBe(true);
    expect(existsSync(path.join(installed, 'scenarios', 'quickstart.yaml'))).toBe(true);
    expect(existsSync(path.join(installed, 'fixtures', 'contracts', 'artifacts', 'HelloWorld.json'))).toBe(true);
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(existsSync(path.join(installed, 'src'))).toBe(false);
    expect(existsSync(path.join(installed, 'test'))).toBe(false);
    const files = readdirSync(path.join(installed, 'dist'), { recursive: true }).map(String);
    expect(files.filter((f) => /\.test(-helper)?\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    // tsx is for development only: the installed command must not need it; nor viem, which only
    // examples/send-tx.mjs uses (the console imports only its types): 67 MB of the install
    expect(existsSync(path.join(app, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules', 'viem'))).toBe(false);
  });

  it("ships what docs/api.md says the tarball holds, and says why the `prepare` script it names never runs for the tarball's users", () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
    const table = /^\| shipped \| what \|\n\|---\|---\|\n((?:\|.*\n)+)/m.exec(doc);
    expect(table, 'docs/api.md: the "| shipped | what |" table').not.toBeNull();
    const documented = table![1]!.split('\n').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    const under = (file: string, entry: string): boolean => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);
    // every file is in a row of the table, and every row has files
    expect(packedFiles.filter((f) => !documented.some((entry) => under(f, entry)))).toEqual([]);
    expect(documented.filter((entry) => !packedFiles.some((f) => under(f, entry)))).toEqual([]);
    // the build script is not shipped (so prepare cannot run from the tarball), and the page names it as package.json has it
    const prepare = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['prepare']!;
    const script = /\bscripts\/\S+\.js\b/.exec(prepare)?.[0];
    expect(script, `prepare: ${prepare}`).toBeDefined();
    expect(packedFiles.filter((f) => /^(src|scripts|test)\//.test(f))).toEqual([]);
    expect(doc).toContain(`\`prepare\` script, \`${prepare}\``);
    expect(doc).toContain('It holds no `src/`, no tests and no `scripts/`, so installing the tarball builds nothing');
  });

  it('runs the installed `twinchain --help`', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const help = await run(twinchain, ['--help'], app);
    expect(help.code, explain('twinchain --help', help)).toBe(0);
    expect(help.stdout).toContain('Usage: twinchain <command> [options]');
    expect(help.stderr).toBe('');
  });

  it('runs a scenario the package ships (with its recorded traffic) and writes a report with the page assets inlined', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const r = await run(twinchain, ['run', path.join(installed, 'scenarios', 'replay-traffic.yaml'), '--quiet', '--out', 'replay-traffic'], app, 120_000);
    expect(r.code, explain('twinchain run', r)).toBe(0);
    expect(r.stdout).toMatch(/^replay-traffic, seed 7: PASS/);
    const html = readFileSync(path.join(app, 'replay-traffic', 'report.html'), 'utf8');
    expect(html).toContain(readFileSync(path.join(ROOT, 'src', 'report', 'report-page.css'), 'utf8').trim());
    expect(html).toContain(readFileSync(path.join(ROOT, 'src', 'report', 'report-page.js'), 'utf8').trim());
  });

  it('replays the recording it ships, with the compiled crypto workers, and exits', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const r = await run(twinchain, ['replay', path.join(installed, 'fixtures', 'chains', 'workload-small.jsonl.gz'), '--json', 'replay.json'], app, 60_000);
    expect(r.code, explain('twinchain replay', r)).toBe(0);
    expect(r.stdout).toMatch(/workload-small\.jsonl\.gz: PASS, 11 blocks \(blocks 1–11\), 32 transactions/);
    expect(JSON.parse(readFileSync(path.join(app, 'replay.json'), 'utf8'))).toMatchObject({ verdict: 'pass', blocks: 11 });
  });

  it('runs swarm on worker threads', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const r = await run(twinchain, ['swarm', 'small.yaml', '--seeds', '2', '--jobs', '2', '--out', 'swarm'], app, 120_000);
    expect(r.code, explain('twinchain swarm', r)).toBe(0);
    expect(r.stdout).toContain('all 2 seeds passed');
    expect(r.stdout).toContain('with 2 jobs');
  });

  it('imports the public API by the package name and uses every entry point', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    await writeFile(path.join(app, 'api.mjs'), API_SCRIPT);
    const r = await run(process.execPath, ['api.mjs'], app, 120_000);
    expect(r.code, explain('node api.mjs', r)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(out).toMatchObject({ received: 2, reason: 'until', scenario: 'pass', rpc: '0x0', functions: true, rootMissing: [] });
    expect(out['blocks']).toBeGreaterThan(0);
    expect(out['conformance']).toMatchObject({ failed: 0 });
  });

  it('typechecks TypeScript that imports the public API (declarations included)', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    await writeFile(path.join(app, 'consumer.ts'), TYPES_SCRIPT);
    const tsconfig = {
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
      files: ['consumer.ts'],
    };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    const r = await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app, 120_000);
    expect(r.code, explain('tsc on consumer.ts', r)).toBe(0);
  });
});
