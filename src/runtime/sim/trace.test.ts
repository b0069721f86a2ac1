import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { busyScenario } from './scenario.test-helper.js';
import { Trace, formatTraceRecord } from './trace.js';
import { TraceFileSink } from './trace-file-sink.js';

describe('trace', () => {
  it('gives the same digest whether it writes JSON lines, keeps records, or only digests', async () => {
    const lines: string[] = [];
    const digestOnly = busyScenario('modes');
    const withSink = busyScenario('modes', { trace: { sink: { write: (line) => void lines.push(line) } } });
    const kept = busyScenario('modes', { trace: { keep: true } });
    const results = await Promise.all([digestOnly, withSink, kept].map((sim) => sim.run({ until: 1200 })));
    expect(new Set(results.map((r) => r.digest)).size).toBe(1);
    expect(lines).toHaveLength(kept.trace.records.length + 1);
    expect(lines.slice(1)).toEqual(kept.trace.records.map(formatTraceRecord));
  });

  it('two runs of the same seed write byte-identical traces', async () => {
    const text = async () => {
      const lines: string[] = [];
      await busyScenario('bytes', { trace: { sink: { write: (line) => void lines.push(line) } } }).run({ until: 1500 });
      return lines.join('\n');
    };
    const first = await text();
    expect(first.length).toBeGreaterThan(10_000);
    expect(await text()).toBe(first);
  });

  it('writes canonical JSON lines: a start header with the seed, then one entry per line', async () => {
    const lines: string[] = [];
    const sim = busyScenario('lines', { trace: { sink: { write: (line) => void lines.push(line) } } });
    await sim.run({ until: 400 });
    const header = JSON.parse(lines[0]!) as { kind: string; fields: Record<string, unknown> };
    expect(header.kind).toBe('start');
    expect(header.fields).toMatchObject({ seed: 'lines', epoch: '2026-01-01T00:00:00.000Z' });
    const entries = lines.slice(1).map((l) => JSON.parse(l) as { i: number; t: number; node: string | null; kind: string });
    expect(entries.map((e) => e.i)).toEqual([...entries.keys()]);
    expect(Object.keys(entries[0]!)).toEqual(['i', 't', 'node', 'kind', 'fields']);
    const kinds = new Set(entries.map((e) => e.kind));
    for (const kind of ['add', 'skew', 'boot', 'log', 'timer', 'deliver', 'drop', 'action', 'net']) expect(kinds).toContain(kind);
    const deliver = lines.find((l) => l.includes('"kind":"deliver"'))!;
    expect(deliver).toMatch(/"fields":\{"bytes":2,("duplicate":true,)?"from":"n\d","hash":"[0-9a-f]{8}","sentAt":[\d.]+\}\}$/);
    expect(entries.every((e, k) => k === 0 || e.t >= entries[k - 1]!.t)).toBe(true);
  });

  it('keeps only the digest by default', () => {
    const trace = new Trace(['a']);
    trace.endSetup();
    trace.timer(5000, 0, 1);
    expect(trace.count).toBe(1);
    expect(trace.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(() => trace.records).toThrow('trace records are kept only with the `keep: true` trace option');
  });

  it('digests the order and content of entries', () => {
    const digestOf = (build: (t: Trace) => void) => {
      const trace = new Trace(['a', 'b']);
      build(trace);
      return trace.digest;
    };
    const base = digestOf((t) => {
      t.timer(1000, 0, 1);
      t.timer(1000, 1, 1);
    });
    expect(
      digestOf((t) => {
        t.timer(1000, 1, 1);
        t.timer(1000, 0, 1);
      }),
    ).not.toBe(base);
    expect(digestOf((t) => t.entry(0, 0, 'x', { a: 1 }))).not.toBe(digestOf((t) => t.entry(0, 0, 'x', { a: 2 })));
    expect(digestOf((t) => t.deliver(1, 0, 1, 4, 0xdead, 0, false))).not.toBe(digestOf((t) => t.deliver(1, 0, 1, 4, 0xbeef, 0, false)));
  });

  it('digests every part of every kind of entry: one argument changed changes the digest', () => {
    const digestOf = (build: (t: Trace) => void) => {
      const trace = new Trace(['a', 'b', 'c']);
      build(trace);
      return trace.digest;
    };
    const variants: Record<string, Array<(t: Trace) => void>> = {
      deliver: [
        (t) => t.deliver(10, 0, 1, 4, 7, 5, false),
        (t) => t.deliver(11, 0, 1, 4, 7, 5, false),
        (t) => t.deliver(10, 2, 1, 4, 7, 5, false),
        (t) => t.deliver(10, 0, 2, 4, 7, 5, false),
        (t) => t.deliver(10, 0, 1, 5, 7, 5, false),
        (t) => t.deliver(10, 0, 1, 4, 8, 5, false),
        (t) => t.deliver(10, 0, 1, 4, 7, 6, false),
        (t) => t.deliver(10, 0, 1, 4, 7, 5, true),
      ],
      drop: [
        (t) => t.drop(10, 0, 1, 'loss', 4, 5),
        (t) => t.drop(11, 0, 1, 'loss', 4, 5),
        (t) => t.drop(10, 2, 1, 'loss', 4, 5),
        (t) => t.drop(10, 0, 2, 'loss', 4, 5),
        (t) => t.drop(10, 0, 1, 'partition', 4, 5),
        (t) => t.drop(10, 0, 1, 'loss', 5, 5),
        (t) => t.drop(10, 0, 1, 'loss', 4, 6),
        (t) => t.drop(10, 0, -1, 'loss', 4, 5, 'ab'.repeat(64)),
        (t) => t.drop(10, 0, -1, 'loss', 4, 5, 'cd'.repeat(64)),
      ],
      timer: [(t) => t.timer(10, 0, 1), (t) => t.timer(11, 0, 1), (t) => t.timer(10, 1, 1), (t) => t.timer(10, 0, 2)],
      entry: [
        (t) => t.entry(10, 0, 'crash', { lostWrites: 1 }),
        (t) => t.entry(11, 0, 'crash', { lostWrites: 1 }),
        (t) => t.entry(10, 1, 'crash', { lostWrites: 1 }),
        (t) => t.entry(10, -1, 'crash', { lostWrites: 1 }),
        (t) => t.entry(10, 0, 'restart', { lostWrites: 1 }),
        (t) => t.entry(10, 0, 'crash', { lostWrites: 2 }),
        (t) => t.entry(10, 0, 'crash', { lostwrites: 1 }),
      ],
    };
    const all = Object.entries(variants).flatMap(([kind, builds]) => builds.map((b, i) => [`${kind} #${i}`, digestOf(b)] as const));
    const seen = new Map<string, string>();
    for (const [name, digest] of all) {
      expect(seen.get(digest), `${name} digests like ${seen.get(digest)}`).toBeUndefined();
      seen.set(digest, name);
    }
  });

  it('writes a trace file that is complete after close', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'twinchain-trace-'));
    try {
      const file = path.join(dir, 'trace.jsonl');
      const sink = new TraceFileSink(file);
      const sim = busyScenario('file', { trace: { sink } });
      await sim.run({ until: 500 });
      sink.close();
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(sim.trace.count + 1);
      expect(() => sink.write('x')).toThrow(`trace file ${file} is closed`);
      expect(() => new TraceFileSink(path.join(dir, 'missing', 'x.jsonl'))).toThrow('cannot open trace file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
