import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestChain } from '../replay/recording-chain.test-helper.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { run } from './replay-command.js';

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'twinchain-replay-cli-'));
  file = path.join(dir, 'chain.jsonl.gz');
  const chain = await TestChain.create();
  await chain.runScenario();
  await chain.record(file);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('twinchain replay', () => {
  it('a matching recording: exit 0, one summary line; --json writes the report', async () => {
    const io = captureIo();
    const json = path.join(dir, 'report.json');
    expect(await main(['replay', file, '--json', json], io)).toBe(0);
    const lines = io.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^replay .*chain\.jsonl\.gz: PASS, 6 blocks \(blocks 1–6\), 19 transactions in [0-9.]+ s \([0-9.,]+ blocks\/s, [0-9.,]+ tx\/s; executing [0-9.]+ s of it\); every check matched, 1 skipped \(below\)$/);
    expect(lines[1]).toMatch(/^ {2}skipped: genesis sealer order \(1× from block 0\): from 2\.9\.0 the genesis mark lists the sealers sorted/);
    const report = JSON.parse(await readFile(json, 'utf8')) as { verdict: string; checks: Record<string, number>; skipped: unknown[] };
    expect(report.verdict).toBe('pass');
    expect(report.checks['block hash']).toBe(6);
  });

  it('--to 2 replays blocks 1–2', async () => {
    const io = captureIo();
    expect(await main(['replay', file, '--to', '2'], io)).toBe(0);
    expect(io.stdout).toContain('PASS, 2 blocks (blocks 1–2)');
    expect(io.stdout).not.toContain('the recording ends');
  });

  it('progress: plain lines every 5 s when stderr is no terminal, a bar with the ETA when it is, nothing with --quiet', async () => {
    let t = 0;
    const now = () => (t += 3000); // every look at the clock is 3 s later
    const plain = captureIo();
    expect(await run([file], plain, { now, bar: undefined })).toBe(0);
    const blocks = Number(/PASS, (\d+) blocks/.exec(plain.stdout)?.[1]);
    const lines = plain.stderr.trim().split('\n');
    // a line at every other block (each 6 s after the one before), never more often than every 5 s
    expect(lines.length).toBe(Math.floor(blocks / 2));
    expect(lines[0]).toMatch(new RegExp(`^replayed 2/${blocks} blocks {2}\\d+% {2}\\d+ tx {2}\\d+\\.\\d blocks/s {2}ETA \\d+s$`));
    const bars: string[] = [];
    expect(await run([file, '--to', '3'], captureIo(), { bar: (text) => bars.push(text) })).toBe(0);
    expect(bars.slice(0, -1)).toHaveLength(3);
    expect(bars[0]).toMatch(/^\[#{8}-{16}\] 1\/3 blocks {2}33% {2}\d+ tx {2}\d+\.\d blocks\/s {2}ETA \d+s$/);
    expect(bars.at(-2)).toMatch(/^\[#{24}\] 3\/3 blocks {2}100% {2}\d+ tx {2}\d+\.\d blocks\/s {2}ETA 0s$/);
    expect(bars.at(-1)).toBe(''); // cleared before the summary
    const quiet = captureIo();
    const quietBars: string[] = [];
    expect(await run([file, '--quiet'], quiet, { now, bar: (text) => quietBars.push(text) })).toBe(0);
    expect([quiet.stderr, quietBars]).toEqual(['', []]);
    expect(quiet.stdout).toContain('PASS');
  });

  it('--to past the end replays every block and says where the recording ends', async () => {
    const io = captureIo();
    expect(await main(['replay', file, '--to', '100000'], io)).toBe(0);
    const [summary, ends] = io.stdout.split('\n');
    const last = /\(blocks 1–(\d+)\)/.exec(summary!)?.[1];
    expect(last).toBeDefined();
    expect(ends).toBe(`  the recording ends at block ${last}, before --to 100000`);
  });

  it('a divergence: exit 1, block, index, field, both values and the decoded call', async () => {
    const lines = gunzipSync(await readFile(file)).toString().trim().split('\n');
    const block2 = JSON.parse(lines[2]!) as { receipts: Array<{ output: string }> };
    const out = block2.receipts[3]!.output;
    block2.receipts[3]!.output = `${out.slice(0, -3)}${out.at(-3) === '0' ? '1' : '0'}${out.slice(-2)}`;
    lines[2] = JSON.stringify(block2);
    const tampered = path.join(dir, 'tampered.jsonl');
    await writeFile(tampered, `${lines.join('\n')}\n`);
    const io = captureIo();
    const json = path.join(dir, 'divergence.json');
    expect(await main(['replay', tampered, '--json', json], io)).toBe(1);
    const printed = io.stdout.split('\n');
    expect(printed[0]).toBe(`replay ${tampered}: DIVERGENCE at block 2, transaction 3: receipt.output`);
    expect(printed[1]).toMatch(/^ {2}recorded: {5}0x08c379a0/);
    expect(printed[2]).toMatch(/^ {2}re-executed: {2}0x08c379a0/);
    expect(printed[3]).toMatch(/^ {2}call: {9}Reverter\.revertWithReason\(string\)\("no"\) at 0x/);
    expect(printed[4]).toMatch(/^ {2}block 1 matched before it \(4 transactions/);
    const report = JSON.parse(await readFile(json, 'utf8')) as { verdict: string; divergence: { block: number; index: number; field: string } };
    expect(report).toMatchObject({ verdict: 'divergence', divergence: { block: 2, index: 3, field: 'receipt.output' } });
  });

  // once: 'header: "supportedVersion" supported_version: expected x.y.z or 2.0.0-rcN (got "banana")'
  it('a recorded supported version it cannot take: said once, with the file and the value', async () => {
    const { gunzipSync } = await import('node:zlib');
    const lines = gunzipSync(await readFile(file)).toString().trim().split('\n');
    for (const [version, why] of [
      ['banana', 'expected x.y.z or 2.0.0-rcN'],
      ['3.0.0', 'only FISCO BCOS 2.x versions (2.0.0-rc1 … 2.255.255) are supported'],
    ]) {
      const header = JSON.parse(lines[0]!) as { supportedVersion: string };
      header.supportedVersion = version!;
      const bad = path.join(dir, `version-${version}.jsonl`);
      await writeFile(bad, [JSON.stringify(header), ...lines.slice(1)].join('\n'));
      const io = captureIo();
      expect(await main(['replay', bad], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain replay: ${bad}:1: header: "supportedVersion" "${version}" is not a supported version: ${why}\n`);
    }
  });

  it('bad file or usage: exit 2 with file:line or the problem', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    await writeFile(bad, '{"format":"other"}\n');
    let io = captureIo();
    expect(await main(['replay', bad], io)).toBe(2);
    expect(io.stderr).toContain(`${bad}:1: not a Twinchain recording`);
    io = captureIo();
    expect(await main(['replay', path.join(dir, 'missing.jsonl')], io)).toBe(2);
    expect(io.stderr).toContain('missing.jsonl: no such file');
    io = captureIo();
    const copy = path.join(dir, 'copy.jsonl');
    await writeFile(copy, await readFile(file));
    const link = path.join(dir, 'link.jsonl');
    await symlink(copy, link);
    for (const report of [copy, link]) {
      io = captureIo();
      expect(await main(['replay', copy, '--json', report], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain replay: --json ${report} is the recording itself; the report would overwrite it: pick another file\n`);
    }
    expect(await readFile(copy)).toEqual(await readFile(file));
    io = captureIo();
    expect(await main(['replay', dir], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain replay: ${dir}: cannot read it: it is a folder\n`);
    io = captureIo();
    expect(await main(['replay'], io)).toBe(2);
    expect(io.stderr).toContain('expected one recording file, got 0');
    io = captureIo();
    expect(await main(['replay', file, '--to', 'x'], io)).toBe(2);
    expect(io.stderr).toContain('--to must be');
  });

  it('a later-variant recording without a block\'s signatureList: exit 2 with file:line, block and field; --allow-missing replays it and the report says so', async () => {
    const lines = gunzipSync(await readFile(file)).toString().trim().split('\n');
    const block4 = JSON.parse(lines[4]!) as { block: Record<string, unknown> };
    delete block4.block.signatureList;
    const stripped = path.join(dir, 'no-signatures.jsonl');
    await writeFile(stripped, `${[...lines.slice(0, 4), JSON.stringify(block4), ...lines.slice(5)].join('\n')}\n`);
    const refused = captureIo();
    expect(await main(['replay', stripped, '--quiet'], refused)).toBe(2);
    expect(refused.stderr).toBe(
      `twinchain replay: ${stripped}:5: block 4: "signatureList" is missing: a recording of the later interface variant (supported version 2.11.0) always carries it, so its check cannot be made; replay --allow-missing signatureList replays it without, listing the check as skipped (blocks 1–3 replayed and matched the recording before it)\n`,
    );
    const allowed = captureIo();
    const json = path.join(dir, 'allowed.json');
    expect(await main(['replay', stripped, '--quiet', '--allow-missing', 'signatureList', '--json', json], allowed)).toBe(0);
    const printed = allowed.stdout.split('\n');
    expect(printed[0]).toMatch(/PASS, 6 blocks/);
    expect(printed).toContain('  allowed to be missing (--allow-missing): signatureList');
    expect(printed).toContain('  skipped: signatures (1× from block 4): the recording has no signatureList (allowed: --allow-missing signatureList)');
    expect(JSON.parse(await readFile(json, 'utf8'))).toMatchObject({ verdict: 'pass', allowMissing: ['signatureList'] });
    // comma-separated or repeated; an unknown name is a usage error
    expect(await main(['replay', stripped, '--quiet', '--allow-missing', 'dbHash,signatureList'], captureIo())).toBe(0);
    const wrong = captureIo();
    expect(await main(['replay', stripped, '--allow-missing', 'stateRoot'], wrong)).toBe(2);
    expect(wrong.stderr).toMatch(/--allow-missing takes a field the later interface variant carries: signatureList, dbHash, receiptsRoot, .* \(got "stateRoot"\)/);
  });

  it('a recording cut short: exit 2 with file:line, and the blocks that matched before it', async () => {
    const lines = gunzipSync(await readFile(file)).toString().trim().split('\n');
    // the header, blocks 1–3 whole, then half of block 4's line
    const cut = path.join(dir, 'cut.jsonl');
    await writeFile(cut, `${lines.slice(0, 4).join('\n')}\n${lines[4]!.slice(0, lines[4]!.length >> 1)}\n`);
    const io = captureIo();
    expect(await main(['replay', cut], io)).toBe(2);
    expect(io.stderr.trim()).toMatch(new RegExp(`^twinchain replay: ${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: not JSON: .* \\(blocks 1–3 replayed and matched the recording before it\\)$`));
    // cut inside the first block: nothing matched before it, nothing said of it
    const first = path.join(dir, 'cut-first.jsonl');
    await writeFile(first, `${lines[0]}\n${lines[1]!.slice(0, 40)}\n`);
    const early = captureIo();
    expect(await main(['replay', first], early)).toBe(2);
    expect(early.stderr).toContain(`${first}:2: not JSON`);
    expect(early.stderr).not.toContain('matched the recording before it');
  });
});

// before: the replay ran, then writing the report died with "internal error: Error: EISDIR ..." and a stack trace (exit 70)
describe('twinchain replay --json that cannot be written', () => {
  it.each([
    ['a folder', (d: string) => d, (d: string) => `cannot write ${d}: it is a folder`],
    ['in a missing folder', (d: string) => path.join(d, 'missing', 'r.json'), (d: string) => `cannot write ${d}/missing/r.json: the folder ${d}/missing does not exist`],
    ['under a file', (d: string) => path.join(d, 'chain.jsonl.gz', 'r.json'), (d: string) => `cannot write ${d}/chain.jsonl.gz/r.json: ${d}/chain.jsonl.gz is a file, not a folder`],
  ])('--json %s: one line with the path and the reason, exit 2, before replaying', async (_name, json, line) => {
    const io = captureIo();
    expect(await main(['replay', file, '--json', json(dir)], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain replay: ${line(dir)}\n`);
    expect(io.stdout).toBe('');
  });
});
