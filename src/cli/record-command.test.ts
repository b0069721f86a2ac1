import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader, type RecordedBlock } from '../replay/index.js';
import { asks, devChain, proxy, type DevChain } from '../replay/dev-chain.test-helper.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { run } from './record-command.js';

let c: DevChain;
let dir: string;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  c = await devChain({ seed: 'record-command' });
  closers.push(c.close);
  dir = await mkdtemp(path.join(tmpdir(), 'twinchain-record-cmd-'));
});
afterAll(async () => {
  for (const close of closers) await close();
  await rm(dir, { recursive: true, force: true });
});

async function blocksOf(file: string): Promise<RecordedBlock[]> {
  const reader = await RecordingReader.open(file);
  const blocks: RecordedBlock[] = [];
  for await (const b of reader.blocks()) blocks.push(b);
  return blocks;
}

describe('twinchain record, stopped (Ctrl-C or kill: the first SIGINT or SIGTERM)', () => {
  it('while a node does not answer: exit 130 about one second later, whatever the request timeout', async () => {
    const front = await proxy(c.url, () => 'hang');
    closers.push(front.close);
    const file = path.join(dir, 'hanging.jsonl');
    const io = captureIo();
    const asked = new Promise<void>((resolve) => {
      const poll = setInterval(() => front.requests.length > 0 && (clearInterval(poll), resolve()), 5);
    });
    // run() throws what main() prints as `twinchain record: <message>` with the exit status
    await expect(run([front.url, '--out', file], io, { until: asked })).rejects.toMatchObject({
      exitCode: 130,
      message: `stopped before the chain was read (${front.url}: no answer (stopped)); ${file} was not written`,
    });
  });

  it('among the blocks: the blocks in hand are kept, exit 130, and the same command continues', async () => {
    const front = await proxy(c.url, ({ request }) => (asks(request, 'getBlockByNumber') && JSON.stringify(request).includes('"0x6",') ? 'hang' : 'forward'));
    closers.push(front.close);
    const file = path.join(dir, 'cut.jsonl');
    const io = captureIo();
    const asked = new Promise<void>((resolve) => {
      const poll = setInterval(() => front.requests.some((r) => JSON.stringify(r).includes('"0x6",')) && (clearInterval(poll), resolve()), 5);
    });
    expect(await run([front.url, '--out', file, '--quiet'], io, { until: asked })).toBe(130);
    const kept = (await blocksOf(file)).map((b) => b.number);
    expect(kept).toEqual([1, 2, 3, 4, 5].slice(0, kept.length));
    expect(io.stderr).toBe(`stopped before block ${kept.length + 1}; the same command continues the recording\n`);
    expect(await main(['record', c.url, '--out', file, '--quiet'], captureIo())).toBe(0);
    expect((await blocksOf(file)).map((b) => b.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('twinchain record', () => {
  it('records the chain, prints the summary line, and a second run continues the file', async () => {
    const file = path.join(dir, 'main.jsonl.gz');
    const io = captureIo();
    expect(await main(['record', c.url, '--to', '5', '--out', file], io)).toBe(0);
    expect(io.stdout).toMatch(new RegExp(`^recorded 5 blocks \\(blocks 1\\.\\.5\\), 129 transactions in \\d+\\.\\d s, \\d+\\.\\d blocks/s -> ${file}\n$`));
    const again = captureIo();
    expect(await main(['record', c.url, '--out', file], again)).toBe(0);
    expect(again.stdout).toMatch(/^recorded 3 blocks \(blocks 6\.\.8\), 5 transactions in .* \(continued after block 5\)\n$/);
    expect(again.stderr).toBe(`continuing ${file} after block 5\n`);
    expect((await blocksOf(file)).map((b) => b.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('progress: plain lines every 5 s when stderr is no terminal, a bar when it is, nothing with --quiet', async () => {
    let t = 0;
    const now = () => (t += 3000); // every look at the clock is 3 s later
    const plain = captureIo();
    expect(await run([c.url, '--out', path.join(dir, 'plain.jsonl'), '--concurrency', '1'], plain, { now, bar: undefined, until: new Promise(() => undefined) })).toBe(0);
    expect(plain.stderr).toMatch(/^recorded \d+\/8 blocks {2}\d+% {2}\d+ tx {2}\d+\.\d blocks\/s {2}ETA \d+s$/m);
    const bars: string[] = [];
    const tty = captureIo();
    expect(await run([c.url, '--out', path.join(dir, 'bar.jsonl')], tty, { bar: (text) => bars.push(text), until: new Promise(() => undefined) })).toBe(0);
    expect(bars.at(-2)).toMatch(/^\[#{24}\] 8\/8 blocks {2}100% {2}134 tx {2}\d+\.\d blocks\/s {2}ETA 0s$/);
    expect(bars.at(-1)).toBe(''); // cleared before the summary
    expect(tty.stderr).toBe('');
    const quiet = captureIo();
    const quietBars: string[] = [];
    expect(await run([c.url, '--out', path.join(dir, 'quiet.jsonl'), '--quiet'], quiet, { now, bar: (text) => quietBars.push(text), until: new Promise(() => undefined) })).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quietBars).toEqual([]);
    expect(quiet.stdout).toMatch(/^recorded 8 blocks/);
  });

  it('a node answering nonsense: exit 1 with the request and the reply', async () => {
    const front = await proxy(c.url, ({ request }) =>
      asks(request, 'getBlockByNumber') && JSON.stringify(request).includes('"0x3"')
        ? (text) => ({ status: 200, body: text.replace('"number":"0x3"', '"number":"0x33"') })
        : 'forward',
    );
    closers.push(front.close);
    const file = path.join(dir, 'nonsense.jsonl');
    const io = captureIo();
    expect(await main(['record', front.url, '--out', file, '--concurrency', '1'], io)).toBe(1);
    expect(io.stderr).toMatch(/^twinchain record: http:\/\/127\.0\.0\.1:\d+\/ answered nonsense to getBlockByNumber \[1,"0x3",true\]: asked for block 3, got number "0x33"; reply: \{"extraData":.*\n$/);
    expect(io.stderr.split('\n')).toHaveLength(2);
    expect(io.stdout).toBe('');
    // blocks 1..8 are one batch, so nothing of it is written; the header is
    expect(await blocksOf(file)).toEqual([]);
  });

  it('a gzip recording cut off that cannot be continued: exit 2, as record --help says, the file untouched', async () => {
    const file = path.join(dir, 'torn.jsonl.gz');
    expect(await main(['record', c.url, '--out', file, '--to', '2', '--quiet'], captureIo())).toBe(0);
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, bytes.length - 20));
    const help = captureIo();
    expect(await main(['record', '--help'], help)).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('2 bad usage or an --out that cannot be continued');
    const io = captureIo();
    expect(await main(['record', c.url, '--out', file, '--quiet'], io)).toBe(2);
    expect(io.stderr).toMatch(/^twinchain record: cannot continue .*torn\.jsonl\.gz: .*the file is cut off.*`zcat .*torn\.jsonl\.gz \| head -n \d+ \| gzip > whole\.jsonl\.gz` keeps them/);
    expect(await readFile(file)).toEqual(bytes.subarray(0, bytes.length - 20));
  });

  it("another chain's file: exit 2, the file untouched", async () => {
    const other = await devChain({ seed: 'record-command-other' });
    closers.push(other.close);
    const file = path.join(dir, 'other.jsonl');
    expect(await main(['record', other.url, '--out', file, '--to', '2', '--quiet'], captureIo())).toBe(0);
    const before = await readFile(file);
    const io = captureIo();
    expect(await main(['record', c.url, '--out', file], io)).toBe(2);
    expect(io.stderr).toMatch(new RegExp(`^twinchain record: ${file} is a recording of another chain \\(its block 0 is 0x[0-9a-f]{64}, .* group 1 has 0x[0-9a-f]{64}\\); pick another --out\n$`));
    expect(await readFile(file)).toEqual(before);
  });

  it.each([
    [[], 'expected exactly one endpoint URL, got 0'],
    [['http://a', 'http://b'], 'expected exactly one endpoint URL, got 2'],
    [['ftp://127.0.0.1:8545'], '"ftp://127.0.0.1:8545": only http and https endpoints are supported'],
    [['http://[bad'], '"http://[bad" is not a URL; expected e.g. http://127.0.0.1:8545'],
    [['http://127.0.0.1:8545', '--group', '0'], '--group must be a positive integer (got "0")'],
    [['http://127.0.0.1:8545', '--from', 'x'], '--from must be a positive integer (got "x")'],
    [['http://127.0.0.1:8545', '--to', 'soon'], '--to must be an integer ≥ 0 (got "soon")'],
    [['http://127.0.0.1:8545', '--from', '5', '--to', '2'], '--to 2 is before --from 5'],
    [['http://127.0.0.1:8545', '--concurrency', '0'], '--concurrency must be an integer from 1 to 64 (got "0")'],
    [['http://127.0.0.1:8545', '--out', ''], '--out must name a file'],
    [['http://127.0.0.1:8545', '--speed', '3'], 'unknown option --speed. Run `twinchain record --help` for its options.'],
  ])('usage %j: exit 2 with one line', async (args, message) => {
    const io = captureIo();
    expect(await main(['record', ...args], io)).toBe(2);
    expect(io.stderr.startsWith(`twinchain record: ${message}`)).toBe(true);
    expect(io.stderr.split('\n')).toEqual([expect.any(String), '']);
    expect(io.stdout).toBe('');
  });

  // before: a folder as --out printed Node's "EISDIR: illegal operation on a directory, read" with a hint about recordings; a missing folder asked the node first
  it.each([
    ['a folder', (d: string) => d, (d: string) => `cannot write ${d}: it is a folder`],
    ['in a missing folder', (d: string) => path.join(d, 'nope', 'x.jsonl'), (d: string) => `cannot write ${d}/nope/x.jsonl: the folder ${d}/nope does not exist`],
  ])('--out %s: one line with the path and the reason, exit 2, nothing asked of the node', async (_name, out, line) => {
    const io = captureIo();
    const watched = await proxy(c.url, () => 'forward');
    closers.push(watched.close);
    expect(await main(['record', watched.url, '--out', out(dir)], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain record: ${line(dir)}\n`);
    expect(watched.requests).toEqual([]);
  });

  it('--help shows the usage, the options and examples', async () => {
    const io = captureIo();
    expect(await main(['record', '--help'], io)).toBe(0);
    expect(io.stdout).toMatch(/^Usage: twinchain record <url> \[--group 1\] \[--from N\] \[--to M\|latest\] \[--out file\]/);
    for (const option of ['--group', '--from', '--to', '--out', '--concurrency', '--quiet', 'Exit status', 'Examples:']) expect(io.stdout).toContain(option);
    const all = captureIo();
    await main(['--help'], all);
    expect(all.stdout).toMatch(/^ {2}record <url> \[--group 1\] .* record a group's blocks and receipts/m);
  });
});
