// The examples of README.md and of every docs/*.md page, run. Every fenced block (```sh or ```text)
// with `$ ` command lines is a command block: each command is run from the repository root (`npx twinchain` as the package's
// `bin` entry under node, `npm start` as npm's script) and what it prints must match the lines
// the page shows under it, in substance:
//   - a line `…` stands for any number of lines, a `…` inside a line for any text;
//   - runs of blanks count as one blank (tables are padded to their content);
//   - wall-clock figures are masked on both sides (`2.3 s wall`, `26.6×`, `63.5 blocks/s`,
//     `in 0.8 s`, mutants' `after 7.3 s` and child `--budget 299s`); others the page writes as `…`;
//     everything else — simulated heights, trace digests, counts, verdicts — must be equal.
// HTML comments right before a fence tell this test how to run the block:
//   <!-- readme-test: skip: <reason> -->      not run; the reason is printed as the test's name
//   <!-- readme-test: ports: 8545+4 20200+4 --> those ports (4 in a row from each) become free
//                                             loopback ports in the commands, and back in the output
//                                             (from the band no other test draws from, as a later
//                                             block reuses them unchecked)
//   <!-- readme-test: tmp: /tmp/serve-readme --> that path becomes a new temporary folder
//                                             (ports and tmp: a later block naming the same ones
//                                             gets the same ports and folder)
//   <!-- readme-test: cwd: /tmp/readme -->    the commands run in that (tmp) folder, not the root
//   <!-- readme-test: before: <command> -->   run first, its output not compared
//   <!-- readme-test: after: <command> -->    run at the end even when the block fails, and
//                                             again when the file ends (stop what a block started)
//   <!-- readme-test: serve: 18545 -->        a `twinchain serve --no-channel` runs for the block;
//                                             port 18545 in the commands is its node0's port
//   <!-- readme-test: http: 8080 -->         a loopback HTTP server that is not a node (every request
//                                             gets 200 text/html "It works!") stands at port 8080
//   <!-- readme-test: mask: hex time -->      hex values of 16 digits or more, or with 0x (block
//                                             hashes, random keys' addresses, node ids), and
//                                             timestamps are compared as "some hex", "some time"
//   <!-- readme-test: file: scenarios/x.yaml --> (on any fence) the block's text is saved as that
//                                             file (in a temporary tree beside the repository's
//                                             fixtures/), and commands naming it get that copy
//   <!-- readme-test: excerpt: docs/x.md -->  not run: part of an example that page runs. Its
//                                             commands must be commands of that page (in order, the
//                                             same text, in blocks that run) and its lines must
//                                             match what the page shows for each (`…` as above)
// The files are read in order (README.md, then docs/*.md by name) and share one temporary tree:
// ports and tmp folders are shared by name across files too.
// A `twinchain serve` command in a block runs in the background until the block's other commands
// are done; its printed lines are compared last. A command block without a marker is run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePortBlock } from '../src/bench/free-ports.js';
import { PLAIN_PROGRESS_LINE } from '../src/cli/progress-text.js';
import { parseReadme, type Block, type Command } from './support/readme-blocks.js';
import { Substitutions } from './support/substitutions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The files whose examples are run: the README, then every page of docs/ by name. */
export const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
const BIN = path.join(ROOT, typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['twinchain']!);

const WALL_MASKS: [RegExp, string][] = [
  [/\d[\d,]*(?:\.\d+)?(?= s wall)/g, '#'],
  [/\d[\d,]*(?:\.\d+)?×/g, '#×'],
  [/\d[\d,]*(?:\.\d+)? (blocks|tx|seeds|requests)\/(s|min)/g, '# $1/$2'],
  [/\bin \d+(?:\.\d+)? s\b/g, 'in # s'],
  [/\b(after|detection) \d+(?:\.\d+)? s\b/g, '$1 # s'],
  [/\bexecuting \d+(?:\.\d+)? s\b/g, 'executing # s'],
  [/(\d transactions?), \d+(?:\.\d+)? s\)/g, '$1, # s)'],
  [/--budget \d+s\b/g, '--budget #s'],
];

export interface Masks {
  readonly hex?: boolean;
  readonly time?: boolean;
}

function normalize(line: string, masks: Masks): string {
  let out = line;
  if (masks.time) out = out.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?/g, '<time>');
  for (const [re, to] of WALL_MASKS) out = out.replace(re, to);
  if (masks.hex) out = out.replace(/0x[0-9a-fA-F]{6,}/g, '0x#').replace(/\b[0-9a-f]{16,}\b/g, '#');
  return out.replace(/\s+/g, ' ').trim();
}

function trimEnd(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out.at(-1) === '') out.pop();
  return out;
}

function lineMatches(expected: string, actual: string): boolean {
  if (!expected.includes('…')) return expected === actual;
  const re = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`).test(actual);
}

/**
 * Whether the actual lines match the expected ones (`…` lines match any run of lines); when not,
 * the furthest expected line that could be matched, to name in the failure.
 */
export function matchLines(expectedRaw: string[], actualRaw: string[], masks: Masks = {}): { ok: boolean; at: number } {
  const expected = trimEnd(expectedRaw.map((l) => normalize(l, masks)));
  const actual = trimEnd(actualRaw.map((l) => normalize(l, masks)));
  let furthest = 0;
  const memo = new Set<string>();
  const go = (e: number, a: number): boolean => {
    const key = `${e},${a}`;
    if (memo.has(key)) return false;
    memo.add(key);
    furthest = Math.max(furthest, e);
    if (e === expected.length) return a === actual.length;
    if (expected[e] === '…') {
      for (let skip = a; skip <= actual.length; skip++) if (go(e + 1, skip)) return true;
      return false;
    }
    return a < actual.length && lineMatches(expected[e]!, actual[a]!) && go(e + 1, a + 1);
  };
  return { ok: go(0, 0), at: furthest };
}

const taken = new Set<number>();
async function freePortRun(count: number): Promise<number> {
  const base = await freePortBlock(count, ['127.0.0.1'], taken, 'held');
  for (let p = base; p < base + count; p++) taken.add(p);
  return base;
}

/** The command as a shell runs it: `npx twinchain` is this checkout's bin, `npm start` quiet. */
function shellCommand(text: string): string {
  return text.replace(/\bnpx twinchain\b/g, `node '${BIN}'`).replace(/^npm start\b/, 'npm run --silent start');
}

interface Output {
  text: string;
  readonly done: Promise<number | null>;
  readonly child: ChildProcess;
}

function start(command: string, cwd: string): Output {
  const child = spawn('bash', ['-c', `exec 2>&1; ${command}`], { cwd, stdio: ['ignore', 'pipe', 'inherit'], detached: true, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
  const out: Output = {
    text: '',
    child,
    done: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (out.text += chunk));
  return out;
}

function stop(out: Output): Promise<unknown> {
  if (out.child.exitCode !== null || out.child.signalCode !== null) return out.done;
  try {
    process.kill(-out.child.pid!, 'SIGINT');
  } catch {
    // already gone
  }
  const killer = setTimeout(() => {
    try {
      process.kill(-out.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 8000);
  return out.done.finally(() => clearTimeout(killer));
}

async function waitFor(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function run(command: string, timeoutMs: number, cwd = ROOT): Promise<string> {
  const out = start(command, cwd);
  const timer = setTimeout(() => void stop(out), timeoutMs);
  await out.done;
  clearTimeout(timer);
  return out.text;
}

function lines(text: string): string[] {
  return text.replace(/\r/g, '').split('\n');
}

// record's and replay's plain progress lines are not compared: how many a run prints depends on the machine's speed
function compare(where: string, command: string, expected: string[], actual: string, subs: Substitutions, masks: Masks): void {
  const got = lines(subs.back(actual)).filter((line) => !PLAIN_PROGRESS_LINE.test(line));
  const { ok, at } = matchLines(expected, got, masks);
  if (ok) return;
  throw new Error(
    `${where}: the output of \`${command}\` no longer matches the page (from the page's line ${at + 1} of this output on)\n` +
      `--- the page\n${expected.join('\n')}\n--- printed now (ports and temporary paths mapped back)\n${got.join('\n')}`,
  );
}

const blocks = PAGES.flatMap((page) => parseReadme(readFileSync(path.join(ROOT, page), 'utf8'), page));
const isCommandBlock = (b: Block): boolean => b.commands.length > 0 && (b.lang === 'sh' || b.lang === 'text');
const excerpts = blocks.filter((b) => isCommandBlock(b) && b.directives.has('excerpt'));
const commandBlocks = blocks.filter((b) => isCommandBlock(b) && !b.directives.has('excerpt'));

/**
 * Checks an excerpt against the page it names: each of its commands must be a command of that
 * page (in the page's order, with the same text, in a block that runs), and its lines must match
 * the lines the page shows for that command (the page's lines read as output: `…` in the excerpt
 * stands for any lines or text of the page's). Returns the problems, none when it holds.
 */
export function checkExcerpt(excerpt: Block, all: readonly Block[]): string[] {
  const page = excerpt.directives.get('excerpt')!;
  const where = `${excerpt.page}:${excerpt.line}`;
  const source = all.filter((b) => b.page === page && isCommandBlock(b) && !b.directives.has('excerpt'));
  if (source.length === 0) return [`${where}: excerpt of ${page}, which has no command blocks (or is not one of ${PAGES.join(', ')})`];
  const shown = source.flatMap((b) => b.commands.map((command) => ({ block: b, command })));
  const problems: string[] = [];
  let next = 0;
  for (const command of excerpt.commands) {
    const text = command.text.replace(/\s+/g, ' ').trim();
    let found = -1;
    for (let i = next; i < shown.length && found < 0; i++) {
      if (shown[i]!.command.text.replace(/\s+/g, ' ').trim() !== text) continue;
      if (matchLines(command.expected, shown[i]!.command.expected).ok) found = i;
    }
    if (found < 0) {
      const same = shown.slice(next).filter((s) => s.command.text.replace(/\s+/g, ' ').trim() === text);
      problems.push(
        same.length === 0
          ? `${excerpt.page}:${command.line}: \`${command.text}\` is not a command of ${page}${next > 0 ? " (after the excerpt's earlier commands)" : ''}`
          : `${excerpt.page}:${command.line}: the lines under \`${command.text}\` do not match ${page}:${same.map((s) => s.command.line).join(', ')}, the same command's output there`,
      );
      continue;
    }
    const { block } = shown[found]!;
    if (block.directives.has('skip')) problems.push(`${excerpt.page}:${command.line}: ${page}:${shown[found]!.command.line} is in a block that is not run (${block.directives.get('skip')}), so the excerpt would check nothing`);
    next = found + 1;
  }
  return problems;
}
const work = mkdtempSync(path.join(tmpdir(), 'twinchain-readme-'));
symlinkSync(path.join(ROOT, 'fixtures'), path.join(work, 'fixtures'));
// saved scripts import the repository's dependencies
symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
const files = new Substitutions();
for (const block of blocks) {
  const file = block.directives.get('file');
  if (file === undefined) continue;
  const target = path.join(work, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, `${block.body.join('\n')}\n`);
  files.add(file, target);
}
/**
 * The clone as the pages' commands see it: every top-level entry linked, except reports/, which
 * is the view's own (temporary) folder, so the examples' reports never land in the clone.
 */
const view = path.join(work, 'clone');
mkdirSync(path.join(view, 'reports'), { recursive: true });
for (const entry of readdirSync(ROOT)) if (entry !== 'reports') symlinkSync(path.join(ROOT, entry), path.join(view, entry));
const openTemps: string[] = [work];
/** Ports and temporary folders by the pages' text, shared by the blocks that name them. */
const sharedPorts = new Map<string, number>();
const sharedTmp = new Map<string, string>();
/** `after` commands of blocks that ran, with their substitutions: run again when the file ends. */
const cleanups: { command: string; cwd: string }[] = [];

afterAll(async () => {
  for (const { command, cwd } of cleanups) await run(command, 60_000, cwd).catch(() => undefined);
  for (const dir of openTemps) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('the README and docs matcher', () => {
  it('fails on a changed number and passes with wildcards and masked wall-clock figures', () => {
    const readme = ['run: PASS (26.6× real time), trace digest 92f2275386a80d3a', '…', 'done in 2.3 s wall'];
    expect(matchLines(['[2026-11-25 03:25:32] node id 48c5c637f05abe44…'], ['[2026-11-26 01:00:00] node id 0123456789abcdef…'], { hex: true, time: true }).ok).toBe(true);
    expect(matchLines(readme, ['run: PASS (31.0× real time), trace digest 92f2275386a80d3a', 'a', 'b', 'done in 9.9 s wall']).ok).toBe(true);
    expect(matchLines(readme, ['run: PASS (31.0× real time), trace digest 92f2275386a80d3b', 'done in 9.9 s wall']).ok).toBe(false);
    expect(matchLines(['113 blocks, …'], ['114 blocks, 1 tx']).ok).toBe(false);
    expect(matchLines(['block 1  1 tx  0x820c58'], ['block 1 1 tx 0xabcdef12'], { hex: true }).ok).toBe(true);
  });

  it('finds the command blocks of the README and of docs/, and their markers', () => {
    expect(PAGES).toContain('docs/README.md');
    expect(commandBlocks.filter((b) => b.page === 'README.md').length).toBeGreaterThan(2);
    expect(commandBlocks.filter((b) => b.page.startsWith('docs/')).length).toBeGreaterThan(10);
    for (const block of commandBlocks) {
      const reason = block.directives.get('skip');
      if (reason !== undefined) expect(reason, `${block.page}:${block.line}: a skip marker needs a reason`).not.toBe('');
    }
  });

  it('takes an excerpt only as it stands on its page', () => {
    const page = parseReadme(['<!-- readme-test: tmp: /tmp/x -->', '```sh', '$ npx twinchain run a.yaml', 'line 1', 'line 2', 'verdict PASS', '$ echo done', 'done', '```'].join('\n'), 'docs/a.md');
    const excerpt = (lines: string[]): Block => parseReadme(['<!-- readme-test: excerpt: docs/a.md -->', '```sh', ...lines, '```'].join('\n'))[0]!;
    expect(checkExcerpt(excerpt(['$ npx twinchain run a.yaml', '…', 'verdict PASS', '$ echo done', 'done']), page)).toEqual([]);
    expect(checkExcerpt(excerpt(['$ npx twinchain run a.yaml', 'line 1', '…']), page)).toEqual([]);
    expect(checkExcerpt(excerpt(['$ npx twinchain run a.yaml', '…', 'verdict FAIL']), page)[0]).toMatch(/do not match docs\/a\.md:3/);
    expect(checkExcerpt(excerpt(['$ npx twinchain run b.yaml']), page)[0]).toMatch(/is not a command of docs\/a\.md/);
    expect(checkExcerpt(excerpt(['$ echo done', 'done', '$ npx twinchain run a.yaml', '…']), page)[0]).toMatch(/is not a command of docs\/a\.md \(after/);
    const skipped = parseReadme(['<!-- readme-test: skip: too slow -->', '```sh', '$ npx twinchain run a.yaml', 'ok', '```'].join('\n'), 'docs/a.md');
    expect(checkExcerpt(excerpt(['$ npx twinchain run a.yaml', 'ok']), skipped)[0]).toMatch(/not run \(too slow\)/);
    expect(checkExcerpt(excerpt(['$ npx twinchain run a.yaml']), [])[0]).toMatch(/has no command blocks/);
  });
});

describe('excerpts of the examples docs/ runs', () => {
  for (const block of excerpts) {
    it(`${block.page}:${block.line}: excerpt of ${block.directives.get('excerpt')}: ${block.commands.map((c) => `$ ${c.text.split('\n')[0]}`).join(' ; ').slice(0, 120)}`, () => {
      expect(checkExcerpt(block, blocks)).toEqual([]);
    });
  }
});

describe.sequential('command blocks of the README and docs/', () => {
  for (const block of commandBlocks) {
    const name = `${block.page}:${block.line}: ${block.commands.map((c) => `$ ${c.text.split('\n')[0]}`).join(' ; ').slice(0, 140)}`;
    const reason = block.directives.get('skip');
    if (reason !== undefined) {
      it.skip(`${name} — not run: ${reason}`, () => undefined);
      continue;
    }
    it(name, { timeout: 240_000 }, async () => {
      const subs = new Substitutions();
      const background: { out: Output; command: Command }[] = [];
      let http: Server | undefined;
      let afterCommand: { command: string; cwd: string } | undefined;
      try {
        const httpPort = block.directives.get('http');
        if (httpPort) {
          http = createHttpServer((_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<!DOCTYPE html><html><body>It works!</body></html>');
          });
          const server = http;
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          subs.add(httpPort, String((server.address() as { port: number }).port));
        }
        for (const spec of (block.directives.get('ports') ?? '').split(/\s+/).filter(Boolean)) {
          const [first, count] = spec.split('+').map(Number);
          const base = sharedPorts.get(spec) ?? (await freePortRun(count ?? 1));
          sharedPorts.set(spec, base);
          for (let i = 0; i < (count ?? 1); i++) subs.add(String(first! + i), String(base + i));
        }
        const tmp = block.directives.get('tmp');
        if (tmp) {
          let dir = sharedTmp.get(tmp);
          if (dir === undefined) {
            dir = mkdtempSync(path.join(tmpdir(), 'twinchain-readme-tmp-'));
            openTemps.push(dir);
            sharedTmp.set(tmp, dir);
          }
          subs.add(tmp, dir);
        }
        const cwdName = block.directives.get('cwd');
        const cwd = cwdName === undefined ? view : sharedTmp.get(cwdName);
        if (cwd === undefined) throw new Error(`${block.page}:${block.line}: cwd ${cwdName} is not a tmp folder of this or an earlier block`);
        const after = block.directives.get('after');
        if (after) {
          afterCommand = { command: shellCommand(subs.forward(after)), cwd };
          cleanups.push(afterCommand);
        }
        const before = block.directives.get('before');
        if (before) await run(shellCommand(subs.forward(before)), 120_000, cwd);
        const servePort = block.directives.get('serve');
        if (servePort) {
          const out = start(`node '${BIN}' serve --nodes 4 --rpc-port 0 --no-channel`, ROOT);
          background.push({ out, command: { line: block.line, text: 'serve (for this block)', expected: [] } });
          await waitFor('the serve for this block to be ready', () => /^ready:/m.test(out.text) || out.child.exitCode !== null, 60_000);
          const port = /node0\s+JSON-RPC\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(out.text)?.[1];
          if (!port) throw new Error(`serve did not start:\n${out.text}`);
          subs.add(servePort, port);
        }
        const maskWords = (block.directives.get('mask') ?? '').split(/\s+/);
        const masks: Masks = { hex: maskWords.includes('hex'), time: maskWords.includes('time') };
        for (const command of block.commands) {
          const shell = shellCommand(files.forward(subs.forward(command.text)));
          const where = `${block.page}:${command.line}`;
          if (/twinchain\.js'? serve\b/.test(shell)) {
            const out = start(shell, cwd);
            background.push({ out, command });
            await waitFor(`${where}: serve's ready line`, () => /^ready:/m.test(out.text) || out.child.exitCode !== null, 60_000);
            if (!/^ready:/m.test(out.text)) throw new Error(`${where}: serve exited with ${out.child.exitCode} before its ready line:\n${subs.back(out.text)}`);
            continue;
          }
          const printed = await run(shell, 180_000, cwd);
          try {
            compare(where, command.text, command.expected, files.back(printed), subs, masks);
          } catch (error) {
            // a command that talks to a background serve: what the serve printed tells why
            (error as Error).message += background.map(({ out }) => `\n--- the background serve (${out.child.exitCode === null ? 'running' : `exited with ${out.child.exitCode}`}) printed\n${subs.back(out.text)}`).join('');
            throw error;
          }
        }
        for (const { out, command } of background) {
          if (command.expected.length === 0) continue;
          const where = `${block.page}:${command.line}`;
          // Block lines may follow the commands that caused them by a moment.
          await waitFor(`${where}: serve's output`, () => matchLines(command.expected, lines(subs.back(out.text)), masks).ok, 10_000).catch(() => undefined);
          compare(where, command.text, command.expected, out.text, subs, masks);
        }
      } finally {
        await Promise.all(background.map(({ out }) => stop(out)));
        await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
        if (afterCommand) await run(afterCommand.command, 60_000, afterCommand.cwd);
      }
    });
  }
});
