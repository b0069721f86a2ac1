import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractBytecode } from '../../fixtures/contracts/artifacts.js';
import { ProtocolVersion, TransactionBuilder } from '../chain/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import { createRpcService, inProcessFetch } from '../rpc/index.js';
import { DevNode, seededRandom } from '../rpc/testing/index.js';
import { PART_BYTES, planParts } from './ahead-protocol.js';
import { CryptoAhead, cryptoRangeCounts, cryptoWorkersReady, stealFromBehind } from './crypto-ahead.js';
import { computeChunk, FIRST_SLICE, headSlice, partRange, prepareRange, TX_FIELDS, TxField, type PreparedRange } from './block-prep.js';
import { preparedStarts } from './prepared-block.js';
import { record } from './recorder.js';
import { parseHeader, type JsonObject } from './recording.js';
import { replayPaths, replayRecording } from './replayer.js';

describe('stealFromBehind', () => {
  // claim: 0 no one has started the part, 1 its worker has, 2 the replay's thread has
  const jobs = (...claims: number[]) => claims.map((c, part) => ({ part, claim: Int32Array.of(c) }));
  const taken = (js: ReturnType<typeof jobs>) => [...stealFromBehind(js)].map((j) => j.part);

  it('leaves a worker one part behind to finish it, and takes the later half of the parts no worker started', () => {
    expect(taken(jobs())).toEqual([]);
    expect(taken(jobs(1, 1, 1))).toEqual([]);
    expect(taken(jobs(1, 1, 0))).toEqual([]);
    expect(taken(jobs(1, 0, 0))).toEqual([2]);
    expect(taken(jobs(1, 0, 0, 0))).toEqual([3]);
    expect(taken(jobs(0, 0, 0, 0))).toEqual([2, 3]);
    expect(taken(jobs(1, 1, 0, 0, 0, 0, 0, 0))).toEqual([5, 6, 7]);
  });

  it('claims what it takes, so the workers skip it, and leaves the other claims alone', () => {
    const js = jobs(1, 0, 0, 0, 0);
    stealFromBehind(js);
    expect(js.map((j) => j.claim[0])).toEqual([1, 0, 0, 2, 2]);
    // a part claimed meanwhile (by its worker) is not taken
    expect(taken(jobs(2, 0, 0))).toEqual([2]);
  });
});

describe('partRange', () => {
  it('splits a block into parts that cover every transaction once, in order', () => {
    expect(partRange(0, 0, 1)).toEqual({ from: 0, to: 0 });
    expect(partRange(1000, 0, 1)).toEqual({ from: 0, to: 1000 });
    expect([0, 1].map((p) => partRange(301, p, 2))).toEqual([
      { from: 0, to: 150 },
      { from: 150, to: 301 },
    ]);
    expect([0, 1, 2].map((p) => partRange(2, p, 3))).toEqual([
      { from: 0, to: 0 },
      { from: 0, to: 1 },
      { from: 1, to: 2 },
    ]);
  });
});

type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A dev node chain: a HelloWorld deploy, then one block of `size` set calls from three senders; recorded in process. */
async function bigBlockRecording(file: string, size: number): Promise<void> {
  const node = await DevNode.create({ seed: 'crypto-ahead', poolLimit: 2 * size });
  const group = node.mainGroup;
  const users = [0, 1, 2].map(
    (i) => new TransactionBuilder({ suite: group.suite, generation: group.version.txGeneration, key: group.suite.generateKeyPair(seededRandom(`ahead-user-${i}`)), random: seededRandom(`ahead-nonce-${i}`) }),
  );
  let sent = 0;
  const send = async (to: Uint8Array | null, data: Uint8Array) => {
    const result = await group.submit(users[sent++ % users.length]!.build({ to, data, blockLimit: 100n }).raw);
    if (!result.accepted) throw new Error(`refused: ${result.rejection.reason}`);
  };
  await send(null, contractBytecode('HelloWorld'));
  const hello = (await node.seal())!.block.receipts[0]!.contractAddress;
  for (let i = 0; i < size; i++) await send(hello, encodeFunctionCall('set(string)', [`tx ${i}`], keccak256));
  await node.seal();
  await record({ url: 'http://dev.in-process/', out: file, fetch: inProcessFetch(createRpcService(node)) });
}

describe('replay with the crypto computed ahead: the workers, this thread, or both give the same verdicts', () => {
  const SIZE = 300;
  let dir: string;
  let file: string;
  let lines: Line[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'twinchain-ahead-'));
    file = path.join(dir, 'big.jsonl');
    await bigBlockRecording(file, SIZE);
    lines = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  }, 60_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('computeChunk over two ranges gives what it gives over the whole block', () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse(lines[0]!.supportedVersion as string);
    const block = lines[2]!.block as JsonObject;
    const whole = computeChunk(block, 2, { from: 0, to: SIZE, signatures: true }, suite, version);
    const [a, b] = [0, 1].map((p) => computeChunk(block, 2, { ...partRange(SIZE, p, 2), signatures: p === 0 }, suite, version));
    expect(whole.computed.every((c) => c === 1)).toBe(true);
    expect(Buffer.concat([a!.hashes, b!.hashes]).equals(Buffer.from(whole.hashes))).toBe(true);
    expect(Buffer.concat([a!.senders, b!.senders]).equals(Buffer.from(whole.senders))).toBe(true);
    expect(a!.signatures).toEqual(whole.signatures);
    expect(whole.signatures.length).toBeGreaterThan(0);
    expect(b!.signatures).toEqual([]);
    // the first hash is the recorded one
    expect(`0x${Buffer.from(whole.hashes.subarray(0, 32)).toString('hex')}`).toBe((block.transactions as Line[])[0]!.hash);
  });

  it('prepareRange posts the first slice, then the rest, packed as recorded; a transaction it cannot pack past the first slice makes the second slice slow', () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse(lines[0]!.supportedVersion as string);
    const slicesOf = (line: Line, part = 0, parts = 1) => {
      const slices: PreparedRange[] = [];
      const work = prepareRange(line, 2, part, parts, suite, version, (slice) => slices.push(slice));
      return { slices, work };
    };
    const recordedHash = (line: Line, i: number) => (line.block.transactions as Line[])[i]!.hash as string;
    const packedHash = (slice: PreparedRange, k: number) => `0x${Buffer.from(slice.bytes.subarray(slice.offsets[k * TX_FIELDS + TxField.Hash]!, slice.offsets[k * TX_FIELDS + TxField.Hash + 1]!)).toString('hex')}`;

    const whole = slicesOf(lines[2]!);
    expect(whole.slices.map((s) => [s.from, s.to, s.count, s.last, s.slow, s.header !== undefined])).toEqual([
      [0, FIRST_SLICE, SIZE, false, undefined, true],
      [FIRST_SLICE, SIZE, SIZE, true, undefined, false],
    ]);
    expect(packedHash(whole.slices[0]!, 0)).toBe(recordedHash(lines[2]!, 0));
    expect(packedHash(whole.slices[1]!, 0)).toBe(recordedHash(lines[2]!, FIRST_SLICE));
    expect(packedHash(whole.slices[1]!, SIZE - FIRST_SLICE - 1)).toBe(recordedHash(lines[2]!, SIZE - 1));
    expect([whole.work.from, whole.work.to, whole.work.txs.length, whole.work.receipts.length]).toEqual([0, SIZE, SIZE, SIZE]);

    // the second part of two: no header, its own first slice
    const second = slicesOf(lines[2]!, 1, 2);
    expect(second.slices.map((s) => [s.from, s.to, s.last, s.header !== undefined])).toEqual([
      [SIZE / 2, SIZE / 2 + FIRST_SLICE, false, false],
      [SIZE / 2 + FIRST_SLICE, SIZE, true, false],
    ]);

    const late = structuredClone(lines[2]!);
    delete late.block.transactions[FIRST_SLICE + 10].nonce;
    const lateSlices = slicesOf(late);
    expect(lateSlices.slices.map((s) => [s.from, s.to, s.last])).toEqual([
      [0, FIRST_SLICE, false],
      [FIRST_SLICE, SIZE, true],
    ]);
    expect(lateSlices.slices[1]!.slow).toMatch(new RegExp(`^transaction ${FIRST_SLICE + 10}\\b.*nonce`));
    // step 2 still gets every transaction it can read
    expect(lateSlices.work.txs.length).toBe(SIZE);

    const early = structuredClone(lines[2]!);
    delete early.block.transactions[3].nonce;
    const earlySlices = slicesOf(early);
    expect(earlySlices.slices).toHaveLength(1);
    expect(earlySlices.slices[0]!).toMatchObject({ from: 0, to: FIRST_SLICE, last: true });
    expect(earlySlices.slices[0]!.slow).toMatch(/^transaction 3\b.*nonce/);
    expect(earlySlices.work.txs.length).toBe(SIZE);

    const notThisBlock = slicesOf(lines[1]!);
    expect(notThisBlock.slices).toEqual([expect.objectContaining({ last: true, slow: 'not the expected block line' })]);
  });

  it('headSlice packs the first transactions of part 0 from the head of the line as prepareRange packs them; given it, prepareRange sends the rest of the part, or marks it slow where the whole line reads otherwise', () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse(lines[0]!.supportedVersion as string);
    const parts = 3;
    const part0 = partRange(SIZE, 0, parts);
    const head = headSlice(JSON.stringify(lines[2]), 2, parts, suite, version)!;
    // fewer than the part holds, so that a slice from the whole line follows
    expect([head.from, head.to, head.count, head.last, head.head, head.header !== undefined]).toEqual([0, part0.to - 1, SIZE, false, true, true]);
    const direct: PreparedRange[] = [];
    prepareRange(lines[2], 2, 0, parts, suite, version, (slice) => direct.push(slice), part0.to - 1);
    expect(Buffer.from(head.bytes).equals(Buffer.from(direct[0]!.bytes))).toBe(true);
    expect([head.offsets, head.quantities, head.header]).toEqual([direct[0]!.offsets, direct[0]!.quantities, direct[0]!.header]);

    const restOf = (line: Line) => {
      const slices: PreparedRange[] = [];
      const work = prepareRange(line, 2, 0, parts, suite, version, (slice) => slices.push(slice), FIRST_SLICE, head);
      return { slices, work };
    };
    const rest = restOf(lines[2]!);
    expect(rest.slices.map((s) => [s.from, s.to, s.count, s.last, s.slow])).toEqual([[part0.to - 1, part0.to, SIZE, true, undefined]]);
    // steps 2 and 3 get the whole part, read from the whole line
    expect([rest.work.from, rest.work.to, rest.work.txs.length, rest.work.receipts.length]).toEqual([0, part0.to, part0.to, part0.to]);

    // the whole line holds another transaction within the head, another header, or another count: slow
    const otherTx = structuredClone(lines[2]!);
    otherTx.block.transactions[3].nonce = '0x99';
    const otherHeader = structuredClone(lines[2]!);
    otherHeader.block.timestamp = '0x1';
    const shorter = structuredClone(lines[2]!);
    shorter.block.transactions.pop();
    shorter.receipts.pop();
    for (const line of [otherTx, otherHeader, shorter]) {
      const slices = restOf(line).slices;
      expect(slices).toHaveLength(1);
      expect(slices[0]).toMatchObject({ last: true, slow: 'the head of its line reads otherwise than the whole line' });
    }
    // a receipt missing, which the head does not hold: slow in a whole-line reading's words
    const fewer = structuredClone(lines[2]!);
    fewer.receipts.pop();
    expect(restOf(fewer).slices[0]!.slow).toBe(`${SIZE} transactions, ${SIZE - 1} receipts`);

    // a head with anything a whole-line reading would mark slow is not given
    const bad = structuredClone(lines[2]!);
    delete bad.block.transactions[5].nonce;
    expect(headSlice(JSON.stringify(bad), 2, parts, suite, version)).toBeUndefined();
    expect(headSlice(JSON.stringify(lines[2]), 3, parts, suite, version), 'another block number').toBeUndefined();
    // a part of one transaction leaves nothing for a head
    expect(headSlice(JSON.stringify(lines[1]), 1, 1, suite, version)).toBeUndefined();
  });

  it('the first long block starts executing from the head of its line; where the whole line reads otherwise (a later "block" key, which JSON.parse keeps), what was started is given up, with the verdict of a replay without workers', async () => {
    await cryptoWorkersReady();
    const [starts, paths] = [{ ...preparedStarts }, { ...replayPaths }];
    expect((await replayRecording(file)).verdict).toBe('pass');
    expect(preparedStarts.fromHead - starts.fromHead).toBe(1);
    expect(replayPaths.givenUp).toBe(paths.givenUp);

    const other = structuredClone(lines[2]!.block);
    other.transactions[5].nonce = '0x99';
    const out = path.join(dir, 'two-blocks.jsonl');
    const texts = lines.map((l) => JSON.stringify(l));
    texts[2] = `${texts[2]!.slice(0, -1)},"block":${JSON.stringify(other)}}`;
    await writeFile(out, `${texts.join('\n')}\n`);
    const [starts2, paths2] = [{ ...preparedStarts }, { ...replayPaths }];
    const withWorkers = await replayRecording(out);
    expect(preparedStarts.fromHead - starts2.fromHead).toBe(1);
    expect(replayPaths.givenUp - paths2.givenUp).toBe(1);
    expect(withWorkers.divergence).toMatchObject({ block: 2, index: 5, field: 'tx.hash' });
    const alone = await replayRecording(out, { signatureWorker: false });
    expect({ ...withWorkers, seconds: 0, executionSeconds: 0 }).toEqual({ ...alone, seconds: 0, executionSeconds: 0 });
  });

  it('a first long line whose head reads but whose whole text is not JSON: the block started from the head is given up, and the replay reports the line as a replay without workers does', async () => {
    await cryptoWorkersReady();
    const texts = lines.map((l) => JSON.stringify(l));
    texts[2] = `${texts[2]!.slice(0, -1)},"after":}`;
    const out = path.join(dir, 'broken-tail.jsonl');
    await writeFile(out, `${texts.join('\n')}\n`);
    const [starts, paths] = [{ ...preparedStarts }, { ...replayPaths }];
    const withWorkers = await replayRecording(out).catch((e: Error) => e.message);
    const [fromHead, givenUp] = [preparedStarts.fromHead - starts.fromHead, replayPaths.givenUp - paths.givenUp];
    const alone = await replayRecording(out, { signatureWorker: false }).catch((e: Error) => e.message);
    expect(withWorkers).toEqual(alone);
    expect(String(withWorkers)).toMatch(/broken-tail\.jsonl:3: not JSON/);
    expect([fromHead, givenUp], 'the head went ahead, and what it started was given up').toEqual([1, 1]);
  });

  it('a block the workers cannot prepare past its first slice: what was started is given up and the block replayed from its JSON, with the verdict of a replay without workers', async () => {
    await cryptoWorkersReady();
    const paths = { ...replayPaths };
    // a malformed nonce past the first slice: the first slice is already executing when the second comes slow
    const out = await tampered((c) => (c[2]!.block.transactions[FIRST_SLICE + 20].nonce = '0xzz'));
    const withWorkers = await replayRecording(out).catch((e: Error) => e.message);
    expect(replayPaths.givenUp - paths.givenUp).toBe(1);
    const alone = await replayRecording(out, { signatureWorker: false }).catch((e: Error) => e.message);
    expect(withWorkers).toEqual(alone);
    expect(JSON.stringify(withWorkers)).toMatch(new RegExp(`transaction ${FIRST_SLICE + 20}`));

    // where the first slice is already slow, nothing is started
    const before = { ...replayPaths };
    const early = await tampered((c) => (c[2]!.block.transactions[5].nonce = '0xzz'));
    const earlyWithWorkers = await replayRecording(early).catch((e: Error) => e.message);
    expect(replayPaths.givenUp).toBe(before.givenUp);
    expect(earlyWithWorkers).toEqual(await replayRecording(early, { signatureWorker: false }).catch((e: Error) => e.message));
  });

  async function tampered(edit: (copy: Line[]) => void): Promise<string> {
    const copy = structuredClone(lines);
    edit(copy);
    const out = path.join(dir, `tampered-${Math.random().toString(36).slice(2)}.jsonl`);
    await writeFile(out, `${copy.map((l) => JSON.stringify(l)).join('\n')}\n`);
    return out;
  }

  const edits: Array<[title: string, edit: (copy: Line[]) => void, index: number, field: string]> = [
    ['a sender near the end of the block (the second part where the block is split)', (c) => (c[2]!.block.transactions[290].from = `0x${'ab'.repeat(20)}`), 290, 'tx.from'],
    ['a signature s (the hash covers it)', (c) => (c[2]!.block.transactions[150].signature.s = '0x1234'), 150, 'tx.hash'],
    ['a recorded hash', (c) => (c[2]!.block.transactions[7].hash = `0x${'cd'.repeat(32)}`), 7, 'tx.hash'],
    ['a signature with r = 0 (refused in the decoder\'s words)', (c) => (c[2]!.block.transactions[200].signature.r = '0x0'), 200, 'tx.r'],
  ];

  it('ready: true once the workers have answered the crypto of every part of a block (so that taking it waits for nothing), not before', async () => {
    const header = parseHeader(lines[0], file);
    const ahead = await CryptoAhead.start(getSuite(header.suite), ProtocolVersion.parse(header.supportedVersion), true);
    try {
      expect(ahead.size).toBeGreaterThan(0);
      expect(ahead.ready(2)).toBe(false);
      ahead.submit([{ number: 2, bytes: Buffer.from(JSON.stringify(lines[2])) }]);
      // the answers arrive in later turns of this thread's event loop
      expect(ahead.ready(2)).toBe(false);
      expect(ahead.receiptsSoFar(2, SIZE)(0), 'no receipt before any part is answered').toBeUndefined();
      const deadline = Date.now() + 20_000;
      while (!ahead.ready(2) && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
      expect(ahead.ready(2)).toBe(true);
      // every part answered: the receipts so far are all of them, as taking the crypto gives them
      const soFar = ahead.receiptsSoFar(2, SIZE);
      const parts = { ...cryptoRangeCounts };
      const crypto = await ahead.take(2, () => lines[2]!.block as JsonObject, SIZE);
      expect(cryptoRangeCounts.here, 'parts computed on this thread').toBe(parts.here);
      expect(crypto.computed.every((c) => c === 1)).toBe(true);
      for (let i = 0; i < SIZE; i++) expect(soFar(i), `receipt ${i}`).toEqual(crypto.receipt(i));
      expect(soFar(0)).toBeDefined();
      expect(soFar(SIZE)).toBeUndefined();
      // taken: no longer pending, nor its receipts kept
      expect(ahead.ready(2)).toBe(false);
      expect(ahead.receiptsSoFar(2, SIZE)(0)).toBeUndefined();
    } finally {
      ahead.close();
    }
  }, 30_000);

  it('the workers prepare the blocks read ahead and answer their crypto, and the replay passes', async () => {
    expect(await cryptoWorkersReady()).toBeGreaterThan(0);
    const before = { ...cryptoRangeCounts };
    const paths = { ...replayPaths };
    const report = await replayRecording(file);
    expect(report.divergence).toBeUndefined();
    expect(report).toMatchObject({ verdict: 'pass', blocks: 2, transactions: SIZE + 1 });
    expect(report.checks['tx sender (signature)']).toBe(SIZE + 1);
    expect(report.checks['signatures']).toBeGreaterThan(0);
    // every block prepared by the workers; each part's crypto answered once, by its worker or (if the worker had not started it) here
    expect(replayPaths.prepared - paths.prepared).toBe(2);
    const parts = cryptoRangeCounts.workers + cryptoRangeCounts.here - before.workers - before.here;
    // block 1 is one part; block 2's line is cut in parts of about PART_BYTES, as many for one worker as for two
    const bytes = Buffer.byteLength((await readFile(file, 'utf8')).split('\n')[2]!);
    const blockParts = planParts(bytes, 1, 0).length;
    expect(planParts(bytes, 2, 0)).toHaveLength(blockParts);
    expect(blockParts).toBe(Math.ceil(bytes / PART_BYTES));
    expect(blockParts).toBeGreaterThan(1);
    expect(parts).toBe(1 + blockParts);
  });

  for (const [title, edit, index, field] of edits) {
    it(`${title} → block 2, index ${index}, ${field}, with the workers and without`, async () => {
      const out = await tampered(edit);
      await cryptoWorkersReady();
      const withWorkers = await replayRecording(out);
      const alone = await replayRecording(out, { signatureWorker: false });
      for (const report of [withWorkers, alone]) {
        expect(report.verdict).toBe('divergence');
        expect({ block: report.divergence!.block, index: report.divergence!.index, field: report.divergence!.field }).toEqual({ block: 2, index, field });
        expect(report.blocks).toBe(1);
      }
      expect(withWorkers.divergence).toEqual(alone.divergence);
    });
  }

  it('without workers everything is computed on the replay\'s thread', async () => {
    const before = { ...cryptoRangeCounts };
    const report = await replayRecording(file, { signatureWorker: false });
    expect(report.verdict).toBe('pass');
    expect(cryptoRangeCounts.workers).toBe(before.workers);
    expect(cryptoRangeCounts.here - before.here).toBe(2);
  });
});
