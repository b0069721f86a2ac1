import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readRecordingHeader, RECORDING_FORMAT, RECORDING_VERSION, RecordingReader, RecordingWriter, utf8, type RecordedBlock, type RecordingHeader } from './recording.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempFile(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'twinchain-recording-'));
  dirs.push(dir);
  return path.join(dir, name);
}

const header: RecordingHeader = {
  format: RECORDING_FORMAT,
  version: RECORDING_VERSION,
  source: 'http://127.0.0.1:8545',
  recordedAt: '2026-11-24T00:00:00.000Z',
  group: 1,
  clientVersion: { 'Supported Version': '2.11.0' },
  supportedVersion: '2.11.0',
  chainId: '1',
  interfaceVariant: 'later',
  suite: 'ecdsa',
  stateType: 'storage',
  genesis: { number: '0x0' },
  config: { sealers: ['aa'], observers: [] },
  from: 1,
};
const block = (n: number): RecordedBlock => ({ number: n, block: { number: `0x${n.toString(16)}` }, receipts: [{ status: '0x0' }] });

async function readAll(file: string): Promise<{ header: RecordingHeader; blocks: RecordedBlock[] }> {
  const reader = await RecordingReader.open(file);
  const blocks: RecordedBlock[] = [];
  for await (const b of reader.blocks()) blocks.push(b);
  return { header: reader.header, blocks };
}

describe('recording files', () => {
  it.each(['chain.jsonl', 'chain.jsonl.gz'])('%s: writes a header and blocks, reads them back, and appends after the last block', async (name) => {
    const file = await tempFile(name);
    const w = RecordingWriter.create(file);
    await w.writeHeader(header);
    await w.writeBlock(block(1));
    await w.writeBlock(block(2));
    await w.end();
    const more = RecordingWriter.create(file, { append: true });
    await more.writeBlock(block(3));
    await more.end();
    const bytes = await readFile(file);
    expect(bytes[0] === 0x1f && bytes[1] === 0x8b).toBe(name.endsWith('.gz'));
    const text = name.endsWith('.gz') ? gunzipSync(bytes).toString() : bytes.toString();
    expect(text.split('\n')).toHaveLength(5);
    const read = await readAll(file);
    expect(read.header).toEqual(header);
    expect(read.blocks.map((b) => b.number)).toEqual([1, 2, 3]);
    expect(read.blocks[2]).toEqual(block(3));
  });

  it('says which line is wrong and why', async () => {
    const file = await tempFile('bad.jsonl');
    const write = (lines: unknown[]) => writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    await writeFile(file, '');
    await expect(RecordingReader.open(file)).rejects.toThrow(`${file}:1: the file is empty (no header line)`);
    await write([{ format: 'other' }]);
    await expect(RecordingReader.open(file)).rejects.toThrow(`${file}:1: not a Twinchain recording (format is "other", expected "twinchain-recording")`);
    await write([{ ...header, version: 9 }]);
    await expect(RecordingReader.open(file)).rejects.toThrow('recording format version 9 is not supported');
    await write([{ ...header, suite: 'rsa' }]);
    await expect(RecordingReader.open(file)).rejects.toThrow(`${file}:1: header: "suite" must be ecdsa or sm, got "rsa"`);
    const { genesis: _g, ...noGenesis } = header;
    await write([noGenesis]);
    await expect(RecordingReader.open(file)).rejects.toThrow(`${file}:1: header: "genesis" is missing`);
    await write([header, block(1), block(3)]);
    await expect(readAll(file)).rejects.toThrow(`${file}:3: expected block 2, got 3 (blocks must follow each other)`);
    await write([header, block(1), '{"number": 2, "block": {']);
    await expect(readAll(file)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not JSON: `));
    await write([header, { number: 1, block: {}, receipts: 'none' }]);
    await expect(readAll(file)).rejects.toThrow(`${file}:2: block 1: "receipts" must be a list of JSON objects`);
  });

  it('reads CRLF line ends, lines longer than a read chunk, and characters split between chunks', async () => {
    const file = await tempFile('long.jsonl');
    // 3 MB lines span the reader's 1 MB chunks; the multi-byte characters land on every boundary somewhere
    const big = (n: number): RecordedBlock => ({ number: n, block: { note: '€ü字'.repeat(400_000 + n) }, receipts: [] });
    await writeFile(file, [header, big(1), block(2), big(3)].map((l) => JSON.stringify(l)).join('\r\n'));
    const read = await readAll(file);
    expect(read.header).toEqual(header);
    expect(read.blocks).toEqual([big(1), block(2), big(3)]);
    const gz = await tempFile('long.jsonl.gz');
    const w = RecordingWriter.create(gz);
    await w.writeHeader(header);
    await w.writeBlock(big(1));
    await w.writeBlock(block(2));
    await w.end();
    expect((await readAll(gz)).blocks).toEqual([big(1), block(2)]);
  });
});

describe('utf8', () => {
  const shared = (bytes: Uint8Array) => {
    const view = new Uint8Array(new SharedArrayBuffer(bytes.length + 3), 3, bytes.length);
    view.set(bytes);
    return view;
  };

  it('reads ASCII and UTF-8 alike, from shared memory and at an offset', () => {
    for (const text of ['{"number":1,"block":{}}', '{"note":"préparé ✓ 区块 😀"}', '']) {
      expect(utf8(shared(Buffer.from(text, 'utf8')))).toBe(text);
    }
  });

  it('keeps the replacement of bytes that are not UTF-8, as a UTF-8 decoder does', () => {
    const bytes = Uint8Array.of(0x7b, 0xff, 0x7d);
    expect(utf8(shared(bytes))).toBe(Buffer.from(bytes).toString('utf8'));
    expect(utf8(shared(bytes))).toBe('{\ufffd}');
  });
});

describe('readRecordingHeader', () => {
  const block = (n: number): RecordedBlock => ({ number: n, block: { number: `0x${n.toString(16)}`, transactions: [] }, receipts: [] });

  it.each(['chain.jsonl', 'chain.jsonl.gz'])('%s: the header RecordingReader.open reads, without reading the blocks', async (name) => {
    const file = await tempFile(name);
    const writer = RecordingWriter.create(file);
    await writer.writeHeader(header);
    for (let n = 1; n <= 3; n++) await writer.writeBlock(block(n));
    await writer.end();
    const reader = await RecordingReader.open(file);
    reader.close();
    expect(await readRecordingHeader(file)).toEqual(reader.header);
  });

  it('a header longer than the part read first, and CRLF line ends, read all the same', async () => {
    const file = await tempFile('long.jsonl');
    const long = { ...header, source: `http://127.0.0.1:8545/${'x'.repeat(100_000)}` };
    await writeFile(file, `${JSON.stringify(long)}\r\n${JSON.stringify(block(1))}\r\n`);
    expect((await readRecordingHeader(file)).source).toBe(long.source);
    // 64 KB of gzip that inflate to more than is read for a header
    const packed = await tempFile('long.jsonl.gz');
    const huge = { ...header, source: `http://127.0.0.1:8545/${'x'.repeat(6_000_000)}` };
    await writeFile(packed, gzipSync(`${JSON.stringify(huge)}\n${JSON.stringify(block(1))}\n`));
    expect((await readRecordingHeader(packed)).source).toBe(huge.source);
    const short = await tempFile('short.jsonl');
    await writeFile(short, `${JSON.stringify(header)}\r\n`);
    expect(await readRecordingHeader(short)).toEqual(header);
  });

  it('gzip data that is damaged or cut off: said as such, at the line it stops', async () => {
    const text = `${JSON.stringify(header)}\n${JSON.stringify(block(1))}\n`;
    const zipped = gzipSync(text);
    const damaged = await tempFile('damaged.jsonl.gz');
    // a deflate block type that does not exist (the gzip header is 10 bytes)
    await writeFile(damaged, Buffer.concat([zipped.subarray(0, 10), Buffer.from([0xff, 0xff, 0xff, 0xff])]));
    await expect(RecordingReader.open(damaged)).rejects.toThrow(`${damaged}:1: cannot read: the gzip data is damaged: invalid block type`);
    const cut = await tempFile('cut.jsonl.gz');
    await writeFile(cut, zipped.subarray(0, zipped.length - 12));
    const readAll = async () => {
      const reader = await RecordingReader.open(cut);
      for await (const _block of reader.blocks());
    };
    await expect(readAll()).rejects.toThrow(/:[12]: cannot read: the file is cut off, its gzip data stops short: unexpected end of file$/);
  });

  it.each([
    ['an empty file', '', /:1: the file is empty/],
    ['a header without its line end', JSON.stringify(header), null],
    ['a line that is not JSON', '{"format":\n', /:1: /],
    ['another format', `${JSON.stringify({ ...header, format: 'other' })}\n`, /:1: not a Twinchain recording/],
    ['bytes that are neither gzip nor text', '{"format"\u0000\u0003garbage\n', /:1: not a Twinchain recording: neither gzip-compressed \(which starts with the bytes 1f 8b\) nor JSON Lines text \(byte 9 is 0x00\)$/],
  ])('%s: what RecordingReader.open says', async (_name, text, error) => {
    const file = await tempFile('odd.jsonl');
    await writeFile(file, text);
    const opened = RecordingReader.open(file).then((r) => {
      r.close();
      return r.header;
    });
    if (error) {
      await expect(opened).rejects.toThrow(error);
      await expect(readRecordingHeader(file)).rejects.toThrow(error);
    } else expect(await readRecordingHeader(file)).toEqual(await opened);
  });
});
