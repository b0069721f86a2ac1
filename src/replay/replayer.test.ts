import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATER_CHECKS, TestChain } from './recording-chain.test-helper.js';
import { feedCounts } from './block-feed.js';
import { cryptoWorkersReady } from './crypto-ahead.js';
import { replayPaths, replayRecording, replayTuning, type ReplayOptions, type ReplayReport } from './replayer.js';
import { parseHeader, type LaterVariantField } from './recorded-json.js';
import { blockHash } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempFile(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-replay-'));
  dirs.push(dir);
  return path.join(dir, name);
}

async function recorded(options: ConstructorParameters<typeof Object>[0] & Parameters<typeof TestChain.create>[0], name: string) {
  const chain = await TestChain.create(options);
  await chain.runScenario();
  const file = await tempFile(name);
  await chain.record(file);
  return { chain, file };
}

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function readLines(file: string): Promise<Line[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

describe('replay round trip: a chain recorded as the RPC answers replays with every check passing', () => {
  for (const suite of ['ecdsa', 'sm'] as const) {
    for (const stateType of ['storage', 'mpt'] as const) {
      it(`${suite}, ${stateType} state, 2.11.0: deploys, events, reverts, tx_count_limit, addObserver/addSealer (4 → 5 sealers)`, async () => {
        const { file } = await recorded({ suite, stateType }, `${suite}-${stateType}.jsonl`);
        const lines = await readLines(file);
        // the recording holds what the scenario promises
        const receipts = lines.slice(1).flatMap((l) => l.receipts as Line[]);
        expect(receipts.some((r) => r.status === '0x16')).toBe(true); // RevertInstruction
        expect(receipts.some((r) => r.status === '0x1a')).toBe(true); // call to an address without code
        expect(receipts.some((r) => (r.logs as unknown[]).length > 0)).toBe(true);
        expect(lines[1]!.receipts.every((r: Line) => r.contractAddress !== `0x${'0'.repeat(40)}`)).toBe(true);
        expect(lines.at(-1)!.block.sealerList).toHaveLength(5);
        expect(lines[1]!.block.sealerList).toHaveLength(4);

        const report = await replayRecording(file);
        expect(report.divergence).toBeUndefined();
        expect(report.verdict).toBe('pass');
        expect(report).toMatchObject({ blocks: 6, firstBlock: 1, lastBlock: 6, transactions: 19, suite, stateType });
        for (const check of [...LATER_CHECKS, 'receipt remainGas']) expect(report.checks[check], check).toBeGreaterThan(0);
        expect(report.checks['tx hash']).toBe(19);
        expect(report.checks['block hash']).toBe(6);
        expect(report.skipped.map((s) => s.check)).toEqual(['genesis sealer order']);
      });
    }
  }

  it('2.4.0 (cumulative receipt gasUsed, no remainGas, sha256 dbHash rule): passes with nothing skipped', async () => {
    const { file } = await recorded({ version: '2.4.0' }, 'v240.jsonl.gz');
    const report = await replayRecording(file);
    expect(report.divergence).toBeUndefined();
    for (const check of LATER_CHECKS) expect(report.checks[check], check).toBeGreaterThan(0);
    expect(report.checks['receipt remainGas']).toBeUndefined();
    expect(report.skipped).toEqual([]);
  });

  it('2.0.0-rc1 (earlier interface variant): passes, and says which checks it could not make and why', async () => {
    const { file } = await recorded({ version: '2.0.0-rc1' }, 'rc1.jsonl');
    const report = await replayRecording(file);
    expect(report.divergence).toBeUndefined();
    expect(report.interfaceVariant).toBe('earlier');
    for (const check of ['genesis hash', 'parentHash', 'receipt status', 'receipt output', 'receipt logs', 'receipt gasUsed', 'stateRoot', 'block hash', 'sealerList']) {
      expect(report.checks[check], check).toBeGreaterThan(0);
    }
    const skipped = Object.fromEntries(report.skipped.map((s) => [s.check, s.reason]));
    expect(Object.keys(skipped).sort()).toEqual(
      ['dbHash', 'receipt contractAddress', 'receipt root', 'receiptsRoot', 'signature quorum', 'signatures', 'transactionsRoot', 'tx hash', 'tx sender (signature)'].sort(),
    );
    expect(skipped['tx hash']).toMatch(/earlier interface variant prints no blockLimit, signature/);
    expect(skipped['signatures']).toMatch(/no signatureList/);
    expect(skipped['receiptsRoot']).toMatch(/no receiptsRoot/);
  });

  it('2.0.0-rc1: a receipt whose contractAddress is not the zero address (the earlier variant\'s only value) is a divergence', async () => {
    const { file } = await recorded({ version: '2.0.0-rc1' }, 'rc1-contract.jsonl');
    const lines = await readLines(file);
    lines[1]!.receipts[0].contractAddress = `0x${'12'.repeat(20)}`;
    const out = await tempFile('rc1-contract-tampered.jsonl');
    await writeFile(out, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const report = await replayRecording(out);
    expect(report.divergence).toMatchObject({ block: 1, index: 0, field: 'receipt.contractAddress', recorded: `0x${'12'.repeat(20)}` });
  });

  it('--to N stops after block N', async () => {
    const { file } = await recorded({}, 'to.jsonl');
    const report = await replayRecording(file, { to: 3 });
    expect(report).toMatchObject({ verdict: 'pass', blocks: 3, lastBlock: 3 });
  });
});

describe('replay tampering: one byte changed in the recording is reported at exactly that block, index and field', () => {
  let file: string;
  let original: Line[];
  beforeAll(async () => {
    file = (await recorded({}, 'base.jsonl')).file;
    original = await readLines(file);
    expect(await cryptoWorkersReady()).toBeGreaterThan(0);
  });

  /**
   * Change one hex digit of the string at `keys` (in line `line`: 0 = header) and replay, three
   * times: with the blocks prepared by the workers (each block's receipts compared by their
   * encodings), the same with every prepared block's checks left until the next block has
   * executed, and parsed on the replay's thread alone. All must say the same.
   */
  async function tamper(line: number, keys: Array<string | number>, change?: (value: string) => string): Promise<ReplayReport> {
    const out = await tampered(line, keys, change);
    const paths = { ...replayPaths };
    const prepared = await replayRecording(out);
    if (line > 0) expect(replayPaths.prepared - paths.prepared, 'blocks replayed from what the workers prepared').toBeGreaterThan(0);
    // every block that passed was prepared, and so waited for the next one's execution to be checked
    const deferred = await alwaysDeferring(() => replayRecording(out), prepared.blocks > 0);
    const parsed = await replayRecording(out, { signatureWorker: false });
    for (const other of [deferred, parsed]) {
      expect(prepared.divergence).toEqual(other.divergence);
      expect(prepared.checks).toEqual(other.checks);
      expect(prepared.skipped).toEqual(other.skipped);
      expect([prepared.blocks, prepared.lastBlock, prepared.transactions]).toEqual([other.blocks, other.lastBlock, other.transactions]);
    }
    return prepared;
  }

  /** Runs `replay` with every prepared block's checks deferred (replayTuning 'always'), and checks that some were, where `some`. */
  async function alwaysDeferring<T>(replay: () => Promise<T>, some: boolean): Promise<T> {
    const before = replayPaths.deferred;
    replayTuning.deferChecks = 'always';
    try {
      return await replay();
    } finally {
      replayTuning.deferChecks = 'auto';
      if (some) expect(replayPaths.deferred, 'blocks whose checks waited for the next block').toBeGreaterThan(before);
    }
  }

  async function tampered(line: number, keys: Array<string | number>, change?: (value: string) => string): Promise<string> {
    const lines = structuredClone(original);
    let holder: Line = lines[line]!;
    for (const k of keys.slice(0, -1)) holder = holder[k] as Line;
    const last = keys.at(-1)!;
    const value = holder[last] as string;
    const flip = (v: string) => {
      const at = v.length > 12 ? 10 : v.length - 1;
      const digit = (parseInt(v[at]!, 16) + 1) % 16;
      return `${v.slice(0, at)}${digit.toString(16)}${v.slice(at + 1)}`;
    };
    holder[last] = (change ?? flip)(value);
    const out = await tempFile('tampered.jsonl');
    await writeFile(out, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return out;
  }

  const cases: Array<[title: string, line: number, keys: Array<string | number>, block: number, index: number | undefined, field: string]> = [
    ['tx hash', 2, ['block', 'transactions', 1, 'hash'], 2, 1, 'tx.hash'],
    ['tx sender (from)', 2, ['block', 'transactions', 2, 'from'], 2, 2, 'tx.from'],
    ['tx signature s (the hash covers the signature)', 2, ['block', 'transactions', 0, 'signature', 's'], 2, 0, 'tx.hash'],
    ['transactionsRoot', 2, ['block', 'transactionsRoot'], 2, undefined, 'block.transactionsRoot'],
    ['receipt status', 2, ['receipts', 3, 'status'], 2, 3, 'receipt.status'],
    ['receipt output (revert reason)', 2, ['receipts', 3, 'output'], 2, 3, 'receipt.output'],
    ['receipt log data', 2, ['receipts', 1, 'logs', 0, 'data'], 2, 1, 'receipt.logs[0].data'],
    ['receipt log topic', 2, ['receipts', 2, 'logs', 1, 'topics', 0], 2, 2, 'receipt.logs[1].topics'],
    ['receipt gasUsed', 2, ['receipts', 4, 'gasUsed'], 2, 4, 'receipt.gasUsed'],
    ['receipt contractAddress', 1, ['receipts', 2, 'contractAddress'], 1, 2, 'receipt.contractAddress'],
    ['receipt remainGas', 5, ['receipts', 1, 'remainGas'], 5, 1, 'receipt.remainGas'],
    ['receiptsRoot', 3, ['block', 'receiptsRoot'], 3, undefined, 'block.receiptsRoot'],
    ['block logsBloom', 2, ['block', 'logsBloom'], 2, undefined, 'block.logsBloom'],
    ['block gasUsed', 2, ['block', 'gasUsed'], 2, undefined, 'block.gasUsed'],
    ['block gasLimit', 2, ['block', 'gasLimit'], 2, undefined, 'block.gasLimit'],
    ['receipt logsBloom', 2, ['receipts', 1, 'logsBloom'], 2, 1, 'receipt.logsBloom'],
    ['receipt root', 2, ['receipts', 1, 'root'], 2, 1, 'receipt.root'],
    ['stateRoot', 4, ['block', 'stateRoot'], 4, undefined, 'block.stateRoot'],
    ['dbHash', 4, ['block', 'dbHash'], 4, undefined, 'block.dbHash'],
    ['block hash', 5, ['block', 'hash'], 5, undefined, 'block.hash'],
    ['a block signature', 6, ['block', 'signatureList', 1, 'signature'], 6, 1, 'signatureList[1]'],
    ['parentHash (changes the block hash too; the parent link is checked first)', 3, ['block', 'parentHash'], 3, undefined, 'block.parentHash'],
    ['timestamp (an execution input: the block hash differs)', 3, ['block', 'timestamp'], 3, undefined, 'block.hash'],
    ['genesis timestamp', 0, ['genesis', 'timestamp'], 0, undefined, 'genesis.hash'],
    ['genesis mark', 0, ['genesis', 'extraData', 0], 0, undefined, 'genesis.hash'],
  ];
  // the mark's txCountLimit 1000 → 1001 (one ASCII digit): it still parses, to another genesis
  const markEdit = (hex: string) => hex.replace('2d313030302d', '2d313030312d');
  for (const [title, line, keys, block, index, field] of cases) {
    it(`${title} → block ${block}${index === undefined ? '' : `, index ${index}`}, ${field}`, async () => {
      const report = await tamper(line, keys, title === 'genesis mark' ? markEdit : undefined);
      expect(report.verdict).toBe('divergence');
      expect({ block: report.divergence!.block, index: report.divergence!.index, field: report.divergence!.field }).toEqual({ block, index, field });
      expect(report.divergence!.recorded).not.toBe(report.divergence!.replayed);
      expect(report.blocks).toBe(block === 0 ? 0 : block - 1);
    });
  }

  it('a block signature whose v byte is flipped (0x00 <-> 0x01) is refused: FISCO recovers the key from r, s, v and compares', async () => {
    const flipV = (sig: string) => `${sig.slice(0, -2)}${sig.endsWith('00') ? '01' : '00'}`;
    const report = await tamper(4, ['block', 'signatureList', 0, 'signature'], flipV);
    expect(report.divergence).toMatchObject({ block: 4, index: 0, field: 'signatureList[0]', replayed: expect.stringMatching(/^does not verify: signature does not verify against the sealer key/) as unknown });
    expect(report.blocks).toBe(3);
  });

  it('a receipt status divergence names the call (decoded with the fixture ABIs) and both statuses', async () => {
    const report = await tamper(2, ['receipts', 3, 'status']);
    expect(report.divergence).toMatchObject({
      recorded: '0x17 (InvalidZeroSignatureFormat)',
      replayed: '0x16 (RevertInstruction)',
      call: expect.stringMatching(/^Reverter\.revertWithReason\(string\)\("no"\) at 0x/) as unknown,
    });
  });

  it('a system precompile call is decoded by its interface', async () => {
    const report = await tamper(3, ['receipts', 0, 'gasUsed']);
    expect(report.divergence!.call).toBe('SystemConfigPrecompiled.setValueByKey(string,string)("tx_count_limit", "500") at 0x0000000000000000000000000000000000001000');
  });

  it('one signature fewer than n − f: the quorum fails (block 6: 5 sealers need 4)', async () => {
    const report = await tamper(6, ['block', 'signatureList'], ((list: unknown[]) => list.slice(1)) as never);
    expect(report.divergence).toMatchObject({ block: 6, field: 'signatureList', recorded: '3 valid signatures', replayed: '4 needed: 5 sealers in force (n − f, f = ⌊(n−1)/3⌋)' });
  });

  it('a receipt recorded with fewer logs than the replay emits is a divergence of the log list (and with more, too)', async () => {
    const fewer = await tamper(2, ['receipts', 2, 'logs'], ((logs: unknown[]) => logs.slice(0, 1)) as never);
    expect(fewer.divergence).toMatchObject({ block: 2, index: 2, field: 'receipt.logs', recorded: expect.stringMatching(/^1 logs: /) as unknown, replayed: expect.stringMatching(/^3 logs: /) as unknown });
    const more = await tamper(2, ['receipts', 2, 'logs'], ((logs: unknown[]) => [...logs, logs[0]]) as never);
    expect(more.divergence).toMatchObject({ block: 2, index: 2, field: 'receipt.logs', recorded: expect.stringMatching(/^4 logs: /) as unknown, replayed: expect.stringMatching(/^3 logs: /) as unknown });
  });

  it('a sealer list that is not the one in force, with the block hash made to agree, is refused as the sealer list', async () => {
    const last = original.length - 1;
    const report = await tamper(last, ['block'], ((block: Line) => {
      const list = block.sealerList as string[];
      [list[0], list[1]] = [list[1]!, list[0]!];
      const header = parseHeader(block, { block: last }, { hashRequired: false });
      block.hash = toHex(blockHash({ ...header, receiptsRoot: header.receiptsRoot!, dbHash: header.dbHash! }, getSuite('ecdsa')));
      return block;
    }) as never);
    expect(report.divergence).toMatchObject({ block: last, field: 'block.sealerList' });
  });

  it('an SM block signature (r‖s‖public key) tampered is caught too', async () => {
    const { file: smFile } = await recorded({ suite: 'sm' }, 'sm-base.jsonl');
    const lines = await readLines(smFile);
    const sig = lines[4]!.block.signatureList[2].signature as string;
    lines[4]!.block.signatureList[2].signature = `${sig.slice(0, 20)}${sig[20] === '0' ? '1' : '0'}${sig.slice(21)}`;
    await writeFile(smFile, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const report = await replayRecording(smFile);
    expect(report.divergence).toMatchObject({ block: 4, index: 2, field: 'signatureList[2]' });
  });
});

describe('replay refuses what it cannot replay, in words', () => {
  it('a recording that starts after block 1', async () => {
    const chain = await TestChain.create();
    await chain.runScenario();
    const file = await tempFile('from3.jsonl');
    const lines = (await readFile((await recorded({}, 'full.jsonl')).file, 'utf8')).split('\n');
    const header = { ...(JSON.parse(lines[0]!) as Line), from: 3 };
    await writeFile(file, [JSON.stringify(header), ...lines.slice(3)].join('\n'));
    await expect(replayRecording(file)).rejects.toThrow(/starts at block 3; replay re-executes from the genesis and cannot rebuild the state of blocks 1–2/);
  });

  it('a block recorded without its transactions, a missing field, a genesis mark of another version', async () => {
    const { file } = await recorded({}, 'shapes.jsonl');
    const lines = await readLines(file);
    const write = async (edit: (l: Line[]) => void) => {
      const copy = structuredClone(lines);
      edit(copy);
      const out = await tempFile('bad.jsonl');
      await writeFile(out, copy.map((l) => JSON.stringify(l)).join('\n'));
      return out;
    };
    await expect(replayRecording(await write((l) => (l[2]!.block.transactions = l[2]!.block.transactions.map((t: Line) => t.hash))))).rejects.toThrow(
      'block 2: "transactions[0]" is a hash only',
    );
    await expect(replayRecording(await write((l) => delete l[2]!.receipts[1].gasUsed))).rejects.toThrow('block 2, receipt 1: "gasUsed" is missing');
    await expect(replayRecording(await write((l) => (l[0]!.supportedVersion = '2.5.0')))).rejects.toThrow(/the genesis cannot be rebuilt from its mark at supported version 2.5.0: genesis mark: unexpected "3"/);
  });
});

describe('blocks the workers cannot take whole are checked from their JSON on the replay\'s thread, with the same verdicts', () => {
  let lines: Line[];
  beforeAll(async () => {
    lines = await readLines((await recorded({}, 'paths.jsonl')).file);
    expect(await cryptoWorkersReady()).toBeGreaterThan(0);
  });
  const write = async (edit: (l: Line[]) => void, text?: (l: Line[]) => string) => {
    const copy = structuredClone(lines);
    edit(copy);
    const out = await tempFile('paths.jsonl');
    await writeFile(out, text ? text(copy) : `${copy.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return out;
  };
  const bothWays = async (file: string) => {
    const paths = { ...replayPaths };
    const prepared = await replayRecording(file);
    const used = { prepared: replayPaths.prepared - paths.prepared, parsed: replayPaths.parsed - paths.parsed };
    const parsed = await replayRecording(file, { signatureWorker: false });
    expect({ ...prepared, seconds: 0, executionSeconds: 0 }).toEqual({ ...parsed, seconds: 0, executionSeconds: 0 });
    return { report: prepared, used };
  };

  it('a block line whose keys are not in the order the recorder writes them: read on this thread, the rest prepared', async () => {
    const file = await write(
      () => undefined,
      (l) => `${l.map((line, i) => JSON.stringify(i === 3 ? { receipts: line.receipts, block: line.block, number: line.number } : line)).join('\n')}\n`,
    );
    const { report, used } = await bothWays(file);
    expect(report.verdict).toBe('pass');
    expect(used.parsed).toBe(1);
    expect(used.prepared).toBe(report.blocks - 1);
  });

  const bothWaysAllowing = async (file: string, allowMissing: ReplayOptions['allowMissing']) => {
    const paths = { ...replayPaths };
    const prepared = await replayRecording(file, { allowMissing });
    const used = { prepared: replayPaths.prepared - paths.prepared, parsed: replayPaths.parsed - paths.parsed };
    const parsed = await replayRecording(file, { signatureWorker: false, allowMissing });
    expect({ ...prepared, seconds: 0, executionSeconds: 0 }).toEqual({ ...parsed, seconds: 0, executionSeconds: 0 });
    return { report: prepared, used };
  };

  it('a later-variant receipt without logsBloom, allowed to be missing: compared field by field, the skip says it was allowed', async () => {
    const { report, used } = await bothWaysAllowing(await write((l) => delete l[2]!.receipts[1].logsBloom), ['logsBloom']);
    expect(report.verdict).toBe('pass');
    expect(used.parsed).toBe(0);
    expect(report.allowMissing).toEqual(['logsBloom']);
    expect(report.skipped).toContainEqual({ check: 'receipt logsBloom', reason: 'the recording has no logsBloom (allowed: --allow-missing logsBloom)', count: 1, firstBlock: 2 });
  });

  it('a transaction without its signature, allowed to be missing: its block is read on this thread and executed as the recorded sender, the skipped checks said', async () => {
    const { report, used } = await bothWaysAllowing(await write((l) => delete l[2]!.block.transactions[1].signature), ['signature']);
    expect(used.parsed).toBe(1);
    // merkle16's transactionsRoot reads the recorded hashes: only that transaction's own checks are skipped
    expect(report.verdict).toBe('pass');
    const reason = 'the recording has no signature (allowed: --allow-missing signature): the transaction cannot be re-encoded; executed as the recorded "from"';
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { check: 'tx hash', reason, count: 1, firstBlock: 2 },
        { check: 'tx sender (signature)', reason, count: 1, firstBlock: 2 },
      ]),
    );
  });

  // what the later interface variant always carries: a recording without it is refused, naming file:line, block and field
  const proofs: Array<[field: string, edit: (l: Line[]) => void, where: string]> = [
    ['signatureList', (l) => delete l[3]!.block.signatureList, 'block 3'],
    ['dbHash', (l) => delete l[3]!.block.dbHash, 'block 3'],
    ['receiptsRoot', (l) => delete l[3]!.block.receiptsRoot, 'block 3'],
    ['root', (l) => delete l[3]!.receipts[0].root, 'block 3, receipt 0'],
    ['logsBloom', (l) => delete l[3]!.receipts[0].logsBloom, 'block 3, receipt 0'],
    ['remainGas', (l) => delete l[3]!.receipts[0].remainGas, 'block 3, receipt 0'],
    ['signature', (l) => delete l[3]!.block.transactions[0].signature, 'block 3, transaction 0'],
    ['blockLimit', (l) => delete l[3]!.block.transactions[0].blockLimit, 'block 3, transaction 0'],
  ];
  it.each(proofs)('a later-variant recording without %s is refused at file:line, both ways; --allow-missing that field replays it, saying so', async (field, edit, where) => {
    const file = await write(edit);
    const message = `${file}:4: ${where}: "${field}" is missing: a recording of the later interface variant (supported version 2.11.0) always carries it, so its check cannot be made; replay --allow-missing ${field} replays it without, listing the check as skipped`;
    await expect(replayRecording(file)).rejects.toThrow(message);
    await expect(replayRecording(file, { signatureWorker: false })).rejects.toThrow(message);
    const { report } = await bothWaysAllowing(file, [field as LaterVariantField]);
    expect(report.verdict).toBe('pass');
    expect(report.skipped.filter((s) => s.reason.includes(`--allow-missing ${field}`)).length).toBeGreaterThan(0);
  });

  it.each([
    ['stateRoot', (l: Line[]) => delete l[3]!.block.stateRoot, 'block 3: "stateRoot" is missing'],
    ['hash', (l: Line[]) => delete l[3]!.block.hash, 'block 3: "hash" is missing'],
    ['input', (l: Line[]) => delete l[3]!.block.transactions[0].input, 'block 3, transaction 0: "input" is missing'],
    ['logs', (l: Line[]) => delete l[3]!.receipts[0].logs, 'block 3, receipt 0: "logs" is missing'],
    ['status', (l: Line[]) => delete l[3]!.receipts[0].status, 'block 3, receipt 0: "status" is missing'],
  ])('a block without %s: file:line, block and field, both ways', async (_field, edit, what) => {
    const file = await write(edit);
    await expect(replayRecording(file)).rejects.toThrow(`${file}:4: ${what}`);
    await expect(replayRecording(file, { signatureWorker: false })).rejects.toThrow(`${file}:4: ${what}`);
  });

  it('a line that is not JSON: the blocks before it replay, then file:line says what is wrong', async () => {
    const file = await write(
      () => undefined,
      (l) => `${l.map((line, i) => (i === 4 ? JSON.stringify(line).slice(0, -40) : JSON.stringify(line))).join('\n')}\n`,
    );
    await expect(replayRecording(file)).rejects.toThrow(`${file}:5: not JSON`);
    await expect(replayRecording(file, { signatureWorker: false })).rejects.toThrow(`${file}:5: not JSON`);
  });
});

describe('reading: on the reader thread where worker threads run, on the replay\'s thread where not, the same either way', () => {
  it('reads on the reader thread by default and on its own thread without workers; a gzip recording cut short is "cannot read" at the line after the last whole one, both ways', async () => {
    const { file } = await recorded({}, 'cut.jsonl');
    const text = await readFile(file, 'utf8');
    const whole = text.split('\n').filter((l) => l !== '').length;
    const gz = await tempFile('cut.jsonl.gz');
    const zipped = gzipSync(Buffer.from(text));
    // cut inside the compressed stream: the last line or more never arrive whole
    await writeFile(gz, zipped.subarray(0, Math.floor(zipped.length * 0.8)));
    await cryptoWorkersReady();
    const before = { ...feedCounts };
    const onThread = await replayRecording(gz).catch((e: Error) => e);
    const here = await replayRecording(gz, { signatureWorker: false }).catch((e: Error) => e);
    expect(feedCounts.readerThread - before.readerThread).toBe(1);
    expect(feedCounts.replayThread - before.replayThread).toBe(1);
    for (const outcome of [onThread, here]) {
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toMatch(new RegExp(`^${gz.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: cannot read: the file is cut off, its gzip data stops short: unexpected end of file$`));
    }
    expect((onThread as Error).message).toBe((here as Error).message);
    expect(Number(/:(\d+): cannot read/.exec((here as Error).message)![1])).toBeLessThanOrEqual(whole + 1);
  });
});
