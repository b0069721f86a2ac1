import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { asks, devChain, proxy, type DevChain } from './dev-chain.test-helper.js';
import { record, RecordError, RecordStoppedError, RecordUsageError, STOP_GRACE_MS, stateTypeOf, suiteOfTransaction, type RecordOptions } from './recorder.js';
import { RecordingReader, type RecordedBlock, type RecordingHeader } from './recording.js';

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempFile(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-recorder-'));
  dirs.push(dir);
  return path.join(dir, name);
}
async function chain(options: Parameters<typeof devChain>[0] = {}): Promise<DevChain> {
  const c = await devChain(options);
  closers.push(c.close);
  return c;
}
async function readAll(file: string): Promise<{ header: RecordingHeader; blocks: RecordedBlock[] }> {
  const reader = await RecordingReader.open(file);
  const blocks: RecordedBlock[] = [];
  for await (const b of reader.blocks()) blocks.push(b);
  return { header: reader.header, blocks };
}
/** Retry waits are recorded, not slept. */
/** Polls until the condition holds (at most 10 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

/** Every block and receipt of the recording equals what the node answers now. */
async function expectSameAsNode(c: DevChain, blocks: readonly RecordedBlock[], first: number, last: number) {
  expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i));
  for (const b of blocks) {
    const block = await c.client.call<{ transactions: Array<{ hash: string }> }>('getBlockByNumber', [1, `0x${b.number.toString(16)}`, true]);
    expect(b.block).toEqual(block);
    expect(b.receipts).toHaveLength(block.transactions.length);
    for (const [i, tx] of block.transactions.entries()) {
      expect(b.receipts[i]).toEqual(await c.client.call('getTransactionReceipt', [1, tx.hash]));
    }
  }
}

const variants = [
  { name: 'later variant (2.11.0), ECDSA, storage state', supportedVersion: '2.11.0', suite: 'ecdsa', stateType: 'storage', variant: 'later' },
  { name: 'earlier variant (2.0.0-rc1, rc1 payloads), ECDSA, mpt state', supportedVersion: '2.0.0-rc1', suite: 'ecdsa', stateType: 'mpt', variant: 'earlier' },
  { name: 'later variant (2.5.0), SM, mpt state', supportedVersion: '2.5.0', suite: 'sm', stateType: 'mpt', variant: 'later' },
  { name: 'earlier variant, SM (suite from the client version)', supportedVersion: '2.0.0-rc1', suite: 'sm', stateType: 'storage', variant: 'earlier' },
] as const;

describe('record a dev chain over real HTTP', () => {
  it.each(variants)('$name: every block and receipt as the node answers them, and the header', async (v) => {
    const c = await chain({ supportedVersion: v.supportedVersion, suite: v.suite, stateType: v.stateType });
    const file = await tempFile('chain.jsonl');
    const progress: number[] = [];
    const summary = await record({ url: c.url, out: file, onProgress: (p) => progress.push(p.blocks) });
    const head = c.height();
    expect(head).toBe(8);
    expect(summary).toMatchObject({ from: 1, to: head, blocks: head, transactions: c.transactions(), batches: true, stopped: false, resumedAfter: undefined });
    expect(progress.at(-1)).toBe(head);
    const { header, blocks } = await readAll(file);
    await expectSameAsNode(c, blocks, 1, head);
    expect(blocks[1]!.receipts.map((r) => r.status)).toEqual(['0x0', '0x16', '0x0']); // set, revert, events
    expect((blocks[1]!.receipts[2]!.logs as unknown[]).length).toBe(6);
    expect(header).toMatchObject({
      source: c.url,
      group: 1,
      interfaceVariant: v.variant,
      suite: v.suite,
      stateType: v.stateType,
      supportedVersion: v.supportedVersion,
      chainId: '1',
      from: 1,
      clientVersion: await c.client.call('getClientVersion', []),
      genesis: await c.client.call('getBlockByNumber', [1, '0x0', true]),
      config: { txCountLimit: '1000', txGasLimit: '300000000', sealers: [c.node.nodeId], observers: [] },
    });
  });

  it('batches of at most maxBatch requests, one block per request, concurrency 1: the same recording', async () => {
    const c = await chain();
    const a = await tempFile('a.jsonl');
    const b = await tempFile('b.jsonl');
    await record({ url: c.url, out: a });
    const front = await proxy(c.url, () => 'forward');
    closers.push(front.close);
    await record({ url: front.url, out: b, maxBatch: 7, blocksPerRequest: 1, concurrency: 1 });
    expect((await readAll(b)).blocks).toEqual((await readAll(a)).blocks);
    const batches = front.requests.filter(Array.isArray) as unknown[][];
    expect(Math.max(...batches.map((x) => x.length))).toBe(7);
  });

  it('--from/--to: only that range, and a .gz recording reads back', async () => {
    const c = await chain();
    const file = await tempFile('part.jsonl.gz');
    const summary = await record({ url: c.url, out: file, from: 3, to: 5 });
    expect(summary).toMatchObject({ from: 3, to: 5, blocks: 3 });
    const bytes = await readFile(file);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const { header, blocks } = await readAll(file);
    expect(header.from).toBe(3);
    await expectSameAsNode(c, blocks, 3, 5);
  });

  it('a chain at block 0 gives a header and no blocks', async () => {
    const { DevNode } = await import('../rpc/testing/index.js');
    const { createRpcService, startHttpServer } = await import('../rpc/index.js');
    const server = await startHttpServer(createRpcService(await DevNode.create({ seed: 'empty' })), { port: 0 });
    closers.push(() => server.close());
    const file = await tempFile('empty.jsonl');
    expect(await record({ url: server.url, out: file })).toMatchObject({ blocks: 0, to: 0 });
    expect((await readAll(file)).blocks).toEqual([]);
  });
});

describe('resume', () => {
  it.each(['chain.jsonl', 'chain.jsonl.gz'])('%s: recording to block k, then again, appends k+1..n only', async (name) => {
    const c = await chain();
    const file = await tempFile(name);
    await record({ url: c.url, out: file, to: 3 });
    const before = (await readAll(file)).header;
    await c.sendBlock(2, 'after');
    const front = await proxy(c.url, () => 'forward');
    closers.push(front.close);
    const notices: string[] = [];
    const summary = await record({ url: front.url, out: file, onNotice: (t) => notices.push(t) });
    expect(summary).toMatchObject({ resumedAfter: 3, from: 4, to: 9, blocks: 6 });
    expect(notices).toContain(`continuing ${file} after block 3`);
    // blocks 1..3 are not asked for again
    const asked = front.requests.flatMap((r) => (Array.isArray(r) ? r : [r])).filter((r) => r.method === 'getBlockByNumber').map((r) => r.params[1]);
    expect(asked).toEqual(['0x0', '0x4', '0x5', '0x6', '0x7', '0x8', '0x9']);
    const { header, blocks } = await readAll(file);
    expect(header).toEqual(before);
    await expectSameAsNode(c, blocks, 1, 9);
    // up to date: nothing to add
    expect(await record({ url: c.url, out: file })).toMatchObject({ blocks: 0, resumedAfter: 9 });
    expect((await readAll(file)).blocks).toHaveLength(9);
  });

  it("refuses another chain's file, another group and a --from that does not follow, leaving the file as it was", async () => {
    const c = await chain();
    const other = await chain({ seed: 'another-chain' });
    const file = await tempFile('chain.jsonl');
    await record({ url: c.url, out: file, to: 2 });
    const bytes = await readFile(file);
    await expect(record({ url: other.url, out: file })).rejects.toThrow(RecordUsageError);
    await expect(record({ url: other.url, out: file })).rejects.toThrow(/is a recording of another chain \(its block 0 is 0x[0-9a-f]{64}, .* group 1 has 0x[0-9a-f]{64}\); pick another --out/);
    await expect(record({ url: c.url, out: file, group: 2 })).rejects.toThrow(`${file} records group 1, not group 2`);
    await expect(record({ url: c.url, out: file, from: 7 })).rejects.toThrow(`${file} ends at block 2, so it can only continue from block 3 (got --from 7)`);
    const notRecording = await tempFile('notes.txt');
    await writeFile(notRecording, 'hello\n');
    await expect(record({ url: c.url, out: notRecording })).rejects.toThrow(/notes.txt:1: not JSON/);
    expect(await readFile(file)).toEqual(bytes);
    expect(await readFile(notRecording, 'utf8')).toBe('hello\n');
  });

  it('a last line cut off by a run that was killed: dropped with a notice, and the recording continues from the block before', async () => {
    const c = await chain();
    const file = await tempFile('torn.jsonl');
    await record({ url: c.url, out: file, to: 4 });
    const whole = await readFile(file, 'utf8');
    const fifth = JSON.stringify((await readAll(file)).blocks[3]);
    await writeFile(file, whole + fifth.slice(0, 120));
    const notices: string[] = [];
    const summary = await record({ url: c.url, out: file, onNotice: (t) => notices.push(t) });
    expect(notices[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: dropped its last line 6, cut off by a run that stopped while writing it \\(not JSON: .*\\); its lines 1–5 \\(blocks 1–4\\) are whole$`));
    expect(summary).toMatchObject({ resumedAfter: 4, from: 5 });
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });

  it('a last line without its line end (written by another tool): ended before the next, in a plain or a gzip file', async () => {
    for (const name of ['unended.jsonl', 'unended.jsonl.gz']) {
      const c = await chain();
      const file = await tempFile(name);
      await record({ url: c.url, out: file, to: 4 });
      const text = name.endsWith('.gz') ? gunzipSync(await readFile(file)).toString('utf8') : await readFile(file, 'utf8');
      await writeFile(file, name.endsWith('.gz') ? gzipSync(text.trimEnd()) : text.trimEnd());
      await record({ url: c.url, out: file });
      await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
    }
  });

  it('appends as the file is written, whatever its name says: gzip in a .jsonl, text in a .jsonl.gz', async () => {
    for (const [name, zip] of [['zipped.jsonl', true], ['plain.jsonl.gz', false]] as const) {
      const c = await chain();
      const file = await tempFile(name);
      const made = await tempFile(zip ? 'made.jsonl.gz' : 'made.jsonl');
      await record({ url: c.url, out: made, to: 4 });
      await writeFile(file, await readFile(made));
      await record({ url: c.url, out: file });
      expect((await readFile(file))[0] === 0x1f).toBe(zip);
      await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
    }
  });

  it('a gzip recording whose end is cut off: refused, saying how to keep its whole lines, and left as it was', async () => {
    const c = await chain();
    const file = await tempFile('cut.jsonl.gz');
    await record({ url: c.url, out: file, to: 4 });
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, bytes.length - 30));
    const failure = await record({ url: c.url, out: file }).catch((e: unknown) => e);
    // an --out that cannot be continued: a usage error (record --help: exit 2)
    expect(failure).toBeInstanceOf(RecordUsageError);
    expect((failure as Error).message).toMatch(/^cannot continue .*cut\.jsonl\.gz: .*cut\.jsonl\.gz:\d+: cannot read: the file is cut off, its gzip data stops short: unexpected end of file; its lines 1–\d+ \(blocks 1–\d+\) are whole: `zcat .*cut\.jsonl\.gz \| head -n \d+ \| gzip > whole\.jsonl\.gz` keeps them, and recording into that file continues it$/);
    expect(await readFile(file)).toEqual(bytes.subarray(0, bytes.length - 30));
  });

  it('stopped by the signal: what is written is a valid recording, and a second run completes it', async () => {
    const c = await chain();
    const file = await tempFile('stopped.jsonl');
    const controller = new AbortController();
    const summary = await record({ url: c.url, out: file, blocksPerRequest: 2, concurrency: 1, signal: controller.signal, onProgress: () => controller.abort() });
    // the chunk already in hand is written too, then it stops
    expect(summary).toMatchObject({ stopped: true, blocks: 4, to: 4 });
    expect((await readAll(file)).blocks.map((b) => b.number)).toEqual([1, 2, 3, 4]);
    await record({ url: c.url, out: file });
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });
});

describe('stopped while the node does not answer', () => {
  // Each request's timeout is a minute: only the stop can end these runs in the test's time.
  const slow = { requestTimeoutMs: 60_000, retryDelayMs: 60_000 };

  it('before the chain is read: RecordStoppedError once the grace is over, and no file', async () => {
    const c = await chain();
    const front = await proxy(c.url, () => 'hang');
    closers.push(front.close);
    const file = await tempFile('never.jsonl');
    const controller = new AbortController();
    const recording = record({ url: front.url, out: file, signal: controller.signal, ...slow });
    await until(() => front.requests.length > 0);
    controller.abort();
    const stopped = Date.now();
    await expect(recording).rejects.toThrow(RecordStoppedError);
    await expect(recording).rejects.toThrow(`stopped before the chain was read (${front.url}: no answer (stopped)); ${file} was not written`);
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(STOP_GRACE_MS - 50);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it('while waiting to retry: at once, naming the last failure; a file being continued is left as it was', async () => {
    const c = await chain();
    const file = await tempFile('busy.jsonl');
    await record({ url: c.url, out: file, to: 2 });
    const before = await readFile(file);
    const front = await proxy(c.url, () => ({ status: 503, body: 'busy' }));
    closers.push(front.close);
    const controller = new AbortController();
    const recording = record({ url: front.url, out: file, signal: controller.signal, ...slow, onNotice: () => controller.abort() });
    await expect(recording).rejects.toThrow(`stopped before the chain was read (${front.url}: HTTP 503 busy); ${file} is as it was`);
    expect(front.requests).toHaveLength(1);
    expect(await readFile(file)).toEqual(before);
  });

  it('while blocks are asked for: the blocks in hand are written, the request that hangs is cut off', async () => {
    const c = await chain();
    const controller = new AbortController();
    // blocks 1-2 answered; the request for blocks 3-4 never is
    const front = await proxy(c.url, ({ request }) => (asks(request, 'getBlockByNumber') && JSON.stringify(request).includes('"0x3",') ? 'hang' : 'forward'));
    closers.push(front.close);
    const file = await tempFile('cut.jsonl');
    // two requests in flight: the one that hangs holds one, the rest go through the other
    const summary = await record({ url: front.url, out: file, blocksPerRequest: 2, concurrency: 2, signal: controller.signal, ...slow, onProgress: () => controller.abort() });
    expect(summary).toMatchObject({ stopped: true, blocks: 2, to: 2 });
    expect((await readAll(file)).blocks.map((b) => b.number)).toEqual([1, 2]);
  });
});

describe('a failing or confused node', () => {
  const base = (url: string, out: string, extra: Partial<RecordOptions> = {}): RecordOptions => ({ url, out, ...extra });

  it('transient failures (HTTP 503, connection reset) are retried with a doubling wait and the recording completes', async () => {
    const c = await chain();
    const front = await proxy(c.url, ({ count }) => (count === 1 ? { status: 503, body: 'busy' } : count === 2 ? 'reset' : count === 5 || count === 6 ? { status: 502, body: '' } : 'forward'));
    closers.push(front.close);
    const file = await tempFile('retried.jsonl');
    const { waits, sleep } = fakeSleep();
    const notices: string[] = [];
    const summary = await record(base(front.url, file, { sleep, onNotice: (t) => notices.push(t), concurrency: 1 }));
    expect(summary.blocks).toBe(8);
    expect(waits).toEqual([250, 500, 250, 500]);
    expect(notices[0]).toBe(`getClientVersion []: ${front.url}: HTTP 503 busy; retry 1 of 5 in 250 ms`);
    expect(notices[1]).toMatch(/^getClientVersion \[\]: .*no answer .*; retry 2 of 5 in 500 ms$/);
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });

  it('gives up after 5 retries naming the request; a refused connection likewise', async () => {
    const c = await chain();
    const file = await tempFile('down.jsonl');
    let failBlocks = false;
    const front = await proxy(c.url, ({ request }) => (failBlocks && asks(request, 'getTransactionReceipt') ? { status: 500, body: 'oops' } : 'forward'));
    closers.push(front.close);
    failBlocks = true;
    const { waits, sleep } = fakeSleep();
    await expect(record(base(front.url, file, { sleep, maxBatch: 200 }))).rejects.toThrow(
      /^a batch of 134 \(getTransactionReceipt \[1,"0x[0-9a-f]{64}"\] …\): no usable answer after 6 attempts \(last: .*HTTP 500 oops\)$/,
    );
    expect(waits.slice(0, 5)).toEqual([250, 500, 1000, 2000, 4000]);
    // the header was known: the file is a valid (empty) recording that a later run continues
    expect((await readAll(file)).blocks).toEqual([]);
    failBlocks = false;
    await record(base(front.url, file));
    expect((await readAll(file)).blocks).toHaveLength(8);

    await front.close();
    const refused = await tempFile('refused.jsonl');
    await expect(record(base(front.url, refused, { sleep: fakeSleep().sleep }))).rejects.toThrow(/^getClientVersion \[\]: no usable answer after 6 attempts \(last: .*no answer \(ECONNREFUSED: connection refused: nothing listens on that port\)\)$/);
  });

  it('a host name that does not resolve, or a URL fetch refuses, fails at once without retries', async () => {
    for (const [url, why, meaning] of [
      ['http://no-such-host.invalid/', 'ENOTFOUND', 'the host name does not resolve'],
      ['http://127.0.0.1:1/', 'bad port', "a port fetch never connects to (the Fetch standard's blocked ports)"],
      ['ftp://127.0.0.1/', 'unknown scheme', 'fetch speaks http and https only'],
      ['http://[::1/', 'ERR_INVALID_URL', 'not a URL'],
    ] as const) {
      const { waits, sleep } = fakeSleep();
      const notices: string[] = [];
      const fetch: typeof globalThis.fetch = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: why.startsWith('E') ? Object.assign(new Error(why), { code: why }) : new Error(why) }));
      const file = await tempFile(`lasting-${waits.length}-${why.replace(/ /g, '-')}.jsonl`);
      await expect(record(base(url, file, { sleep, fetch, onNotice: (t) => notices.push(t) }))).rejects.toThrow(`getClientVersion []: ${url}: no answer (${why}): ${meaning}; asking again would not help`);
      expect([waits, notices]).toEqual([[], []]);
    }
  });

  it('a node that refuses batches is recorded with single requests', async () => {
    const c = await chain();
    const front = await proxy(c.url, ({ request }) =>
      Array.isArray(request) ? { status: 200, body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"INVALID_JSON_REQUEST"}}' } : 'forward',
    );
    closers.push(front.close);
    const file = await tempFile('single.jsonl');
    const notices: string[] = [];
    const summary = await record(base(front.url, file, { onNotice: (t) => notices.push(t) }));
    expect(summary.batches).toBe(false);
    expect(notices.filter((t) => t.startsWith('the node does not take JSON-RPC batches (HTTP 200: {"jsonrpc"'))).toHaveLength(1);
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });

  it('an error item in a batch is asked again alone', async () => {
    const c = await chain();
    let tampered = 0;
    const front = await proxy(c.url, ({ request }) =>
      Array.isArray(request) && asks(request, 'getTransactionReceipt') && tampered++ === 0
        ? (text) => {
            const items = JSON.parse(text) as Array<Record<string, unknown>>;
            items[0] = { jsonrpc: '2.0', id: items[0]!.id, error: { code: -32603, message: 'busy' } };
            return { status: 200, body: JSON.stringify(items) };
          }
        : 'forward',
    );
    closers.push(front.close);
    const file = await tempFile('item.jsonl');
    expect((await record(base(front.url, file))).batches).toBe(true);
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });

  const tamperBlock = (n: number, change: (block: Record<string, unknown>) => void) => (text: string) => {
    const parsed = JSON.parse(text) as unknown;
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const block = (item as { result?: Record<string, unknown> }).result;
      if (block && block.number === `0x${n.toString(16)}`) change(block);
    }
    return { status: 200, body: JSON.stringify(parsed) };
  };
  const nonsense: Array<[string, (c: DevChain) => (e: { request: unknown }) => ReturnType<Parameters<typeof proxy>[1]>, RegExp]> = [
    [
      'a reply that is not JSON',
      () => ({ request }) => (asks(request, 'getBlockNumber') ? { status: 200, body: '<html>Bad Gateway</html>' } : 'forward'),
      // the batch falls back to single requests, whose reply is nonsense too
      /answered nonsense to getBlockNumber \[1\]: HTTP 200 with a body that is not JSON; reply: <html>Bad Gateway<\/html>$/,
    ],
    [
      'a block other than the one asked for',
      () => ({ request }) => (asks(request, 'getBlockByNumber') ? tamperBlock(4, (b) => (b.number = '0x5')) : 'forward'),
      /answered nonsense to getBlockByNumber \[1,"0x4",true\]: asked for block 4, got number "0x5"; reply: \{"extraData"/,
    ],
    [
      "a block whose parentHash is not the previous block's hash",
      () => ({ request }) => (asks(request, 'getBlockByNumber') ? tamperBlock(6, (b) => (b.parentHash = `0x${'ab'.repeat(32)}`)) : 'forward'),
      /answered nonsense to getBlockByNumber \[1,"0x6",true\]: block 6's parentHash "0xabab.*" is not block 5's hash 0x[0-9a-f]{64}/,
    ],
    [
      'a missing receipt',
      () => ({ request }) =>
        asks(request, 'getTransactionReceipt')
          ? (text) => ({ status: 200, body: text.replace(/"result":\{"blockHash"/, '"result":null,"x":{"blockHash"') })
          : 'forward',
      /answered nonsense to getTransactionReceipt \[1,"0x[0-9a-f]{64}"\]: block \d has \d+ transactions but no receipt for transaction 0 \(0x[0-9a-f]{64}\); reply: null/,
    ],
    [
      "a receipt of another transaction",
      () => ({ request }) =>
        asks(request, 'getTransactionReceipt') ? (text) => ({ status: 200, body: text.replace(/"transactionHash":"0x[0-9a-f]{4}/, '"transactionHash":"0xdead') }) : 'forward',
      /answered nonsense to getTransactionReceipt \[1,"0x[0-9a-f]{64}"\]: the receipt is for transaction "0xdead[0-9a-f]{60}", not 0x[0-9a-f]{64}; reply: \{"blockHash"/,
    ],
    [
      'a JSON-RPC error for a block that exists',
      () => ({ request }) =>
        asks(request, 'getBlockByNumber') && !JSON.stringify(request).includes('"0x0"')
          ? (text) => ({ status: 200, body: text.replace(/"result":\{"extraData".*?"transactionsRoot":"0x[0-9a-f]{64}"(,"dbHash":"0x[0-9a-f]+","receiptsRoot":"0x[0-9a-f]+","signatureList":\[.*?\])?\}/g, '"error":{"code":-40004,"message":"BlockNumber does not exist"}') })
          : 'forward',
      /answered getBlockByNumber \[1,"0x1",true\] with error -40004: BlockNumber does not exist/,
    ],
  ];
  it('the blocks before the nonsense stay, as a valid recording a later run continues', async () => {
    const c = await chain();
    let tamper = true;
    const front = await proxy(c.url, ({ request }) => (tamper && asks(request, 'getBlockByNumber') ? tamperBlock(6, (b) => (b.parentHash = `0x${'ab'.repeat(32)}`)) : 'forward'));
    closers.push(front.close);
    const file = await tempFile('partial.jsonl.gz');
    await expect(record(base(front.url, file, { blocksPerRequest: 2 }))).rejects.toThrow("block 6's parentHash");
    expect((await readAll(file)).blocks.map((b) => b.number)).toEqual([1, 2, 3, 4, 5]);
    tamper = false;
    expect(await record(base(front.url, file))).toMatchObject({ resumedAfter: 5, blocks: 3 });
    await expectSameAsNode(c, (await readAll(file)).blocks, 1, 8);
  });

  it.each(nonsense)('%s: stops with the request and the reply; the blocks before stay', async (_name, make, message) => {
    const c = await chain();
    const front = await proxy(c.url, make(c));
    closers.push(front.close);
    const file = await tempFile('nonsense.jsonl');
    const error = await record(base(front.url, file, { sleep: fakeSleep().sleep })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RecordError);
    expect((error as Error).message).toMatch(message);
    // whatever was written is a valid recording of consecutive blocks
    // (RecordingReader.open of a missing file leaves an unhandled stream error behind, so look first)
    if (await stat(file).then(() => true, () => false)) (await readAll(file)).blocks.forEach((b, i) => expect(b.number).toBe(i + 1));
  });
});

describe('detection', () => {
  it('suite from a signed transaction: a 64-byte public key in v is SM, even when the client version does not say gm', async () => {
    const c = await chain({ suite: 'sm' });
    const front = await proxy(c.url, ({ request }) =>
      asks(request, 'getClientVersion') ? (text) => ({ status: 200, body: text.replace(' gm"', '"') }) : 'forward',
    );
    closers.push(front.close);
    const file = await tempFile('sm.jsonl');
    await record({ url: front.url, out: file });
    const { header } = await readAll(file);
    expect(String((header.clientVersion as Record<string, unknown>)['FISCO-BCOS Version'])).not.toMatch(/gm/);
    expect(header.suite).toBe('sm');
    expect(suiteOfTransaction({ signature: { v: `0x${'11'.repeat(64)}` } })).toBe('sm');
    expect(suiteOfTransaction({ signature: { v: '0x1c' } })).toBe('ecdsa');
    expect(suiteOfTransaction({ hash: '0x' })).toBeUndefined();
  });

  it('state type from the genesis mark', () => {
    const mark = (text: string) => ({ extraData: [`0x${Buffer.from(text).toString('hex')}`] });
    expect(stateTypeOf(mark('1-ab,-pbft-storage-0-1000-300000000'))).toBe('storage');
    expect(stateTypeOf(mark('1-ab,-raft-rocksdb-mpt-1000-300000000'))).toBe('mpt');
    expect(stateTypeOf(mark('1-ab,-pbft-1000'))).toBeUndefined();
    expect(stateTypeOf({})).toBeUndefined();
  });
});
