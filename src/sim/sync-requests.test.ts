// Answers to block requests over the sync module: a node asked for blocks it does not have sends
// nothing (never an empty `blocks` message, which would make the asker plan its downloads again),
// and one asked across its head sends what it has. The same holds for a forging peer asked past
// the height it claims.
import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../node/index.js';
import { decodeSyncMessage, encodeSyncMessage } from '../sync/index.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };

describe('answers to block requests', () => {
  it.each([
    ['an honest sealer', undefined],
    ['a forging sync peer', { node0: { behaviour: 'forge-sync' as const, variant: 'too-few-signatures' } }],
  ])('%s asked for blocks past its head sends nothing; asked across it, the blocks it has', async (_who, byzantine) => {
    const c = cluster({ seed: 'sync-requests', sealers: 4, observers: 1, network: lan, ...(byzantine ? { byzantine } : {}) });
    const answers: Array<{ from: string; to: string; blocks: number; atMs: number }> = [];
    c.sim.network.observe({
      delivered(from, to, payload) {
        const frame = decodeFrame(payload);
        if ('error' in frame || frame.module !== 'sync') return;
        const m = decodeSyncMessage(frame.payload);
        if (m.type === 'blocks') answers.push({ from, to, blocks: m.blocks.length, atMs: c.sim.now });
      },
    });
    c.startHelloWorldLoad(5, 10_000);
    await c.sim.run({ until: 6_000 });
    const head = c.group('node0')!.blockNumber();
    expect(head).toBeGreaterThan(3);
    const ask = (from: number, count: number) => c.group('node4')!.send(c.ids[0]!, 'sync', encodeSyncMessage({ type: 'reqBlocks', from, count }));
    c.sim.at(6_100, () => ask(head + 10_000, 4));
    c.sim.at(6_500, () => ask(head - 1, 3));
    await c.sim.run({ until: 8_000 });
    expect(answers.filter((a) => a.blocks === 0)).toEqual([]);
    const across = answers.filter((a) => a.from === 'node0' && a.to === 'node4' && a.atMs > 6_500 && a.atMs < 6_600);
    expect(across.map((a) => a.blocks)).toEqual([3]);
  });
});
