// Issue 44: the API examples of the README and docs/ are files in examples/, run here against the
// built package (they import it by its name, which in the clone is the package itself: its
// exports and dist/), type-checked with its declarations (and linted by npm run lint), and every
// block that shows one is the file word for word (<!-- readme-test: example: examples/x -->).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../src/sim/index.js';
import { parseReadme } from './support/readme-blocks.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLES = path.join(ROOT, 'examples');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const examples = readdirSync(EXAMPLES).filter((f) => /\.(ts|mjs)$/.test(f));

function run(args: string[], timeout = 120_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** node for JavaScript, tsx for TypeScript: either way the package's dist/ is what runs. */
const runExample = (file: string, ...args: string[]) => run(file.endsWith('.ts') ? [TSX, path.join(EXAMPLES, file), ...args] : [path.join(EXAMPLES, file), ...args]);

describe('examples/', () => {
  beforeAll(() => {
    if (!existsSync(path.join(ROOT, 'dist', '.built'))) throw new Error('dist/ is not built: the examples run against the built package (npm run build)');
  });

  it('every README and docs/ block marked as an example is its file, and every example is shown somewhere', () => {
    const pages = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const shown = new Set<string>();
    for (const page of pages) {
      for (const block of parseReadme(readFileSync(path.join(ROOT, page), 'utf8'), page)) {
        const file = block.directives.get('example');
        if (file === undefined) continue;
        expect(existsSync(path.join(ROOT, file)), `${page}:${block.line}: ${file} does not exist`).toBe(true);
        expect(`${block.body.join('\n')}\n`, `${page}:${block.line}: the block differs from ${file}`).toBe(readFileSync(path.join(ROOT, file), 'utf8'));
        shown.add(path.basename(file));
      }
    }
    expect(examples.filter((f) => !shown.has(f)), 'examples no page shows').toEqual([]);
  });

  it('type-check against the package\'s declarations (TypeScript strictly, JavaScript as an editor does)', async () => {
    for (const config of ['tsconfig.json', 'tsconfig.js.json']) {
      const checked = await run([TSC, '--noEmit', '-p', path.join(EXAMPLES, config)]);
      expect(checked.out, `tsc -p examples/${config}`).toBe('');
      expect(checked.code).toBe(0);
    }
  });

  it('package-api.mjs runs the quickstart scenario and the conformance suite', async () => {
    const { code, out } = await runExample('package-api.mjs');
    expect(code, out).toBe(0);
    expect(out).toMatch(/^pass 92f2275386a80d3a$/m);
    expect(out).toMatch(/^quickstart \(.*quickstart\.yaml\), seed 1: PASS$/m);
    expect(out).toMatch(/\b0 failed\b/);
  });

  it('rpc-service.ts serves a node over HTTP and in process', async () => {
    const { code, out } = await runExample('rpc-service.ts');
    expect(code, out).toBe(0);
    expect(out).toContain('over HTTP: 2.11.0');
    expect(out).toMatch(/in process: \{ jsonrpc: '2\.0', id: 1, result: '0x[0-9a-f]+' \}/);
  });

  it('simulation.ts runs, checks its invariant after every event and is deterministic', async () => {
    const { code, out } = await runExample('simulation.ts');
    expect(code, out).toBe(0);
    expect(out).toMatch(/^until after \d+ events at 60000 ms, digest [0-9a-f]{16}$/m);
    expect(out).toContain('deterministic: true');
  });

  describe('send-tx.mjs against a dev server', () => {
    let dev: DevServer;
    beforeAll(async () => {
      dev = await startDevServer({ nodes: 1, rpcPort: 0, seed: 'examples-send-tx' });
    });
    afterAll(async () => {
      await dev?.close();
    });

    it('deploys HelloWorld with a viem-signed transaction', async () => {
      const { code, out } = await runExample('send-tx.mjs', dev.endpoints[0]!.url);
      expect(code, out).toBe(0);
      expect(out).toMatch(/^HelloWorld deployed at 0x[0-9a-f]{40} in block \d+, status 0x0$/m);
    });
  });
});
