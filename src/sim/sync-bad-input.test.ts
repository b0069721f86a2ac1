import { describe, expect, it } from 'vitest';
import { encodeSyncMessage } from '../sync/index.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 10 } };

describe('block sync: what a peer sends that is not a sync message', () => {
  it('an undecodable sync message, or a block in one, is counted, traced with its sender and dropped; the node goes on', async () => {
    const bad: Array<{ node: string; at: number; fields: Readonly<Record<string, unknown>> }> = [];
    const c = cluster({ seed: 'sync-garbage', network: lan, onNodeEvent: (node, kind, fields, at) => void (kind === 'bad-message' && bad.push({ node, at, fields })) });
    c.startHelloWorldLoad(5, 6000);
    const from = c.chain.idOf('node0');
    const to = c.chain.idOf('node1');
    c.sim.at(2000, () => c.group('node0')!.send(to, 'sync', Uint8Array.of(0xc3, 0x01, 0x02)));
    c.sim.at(2500, () => c.group('node0')!.send(to, 'sync', encodeSyncMessage({ type: 'blocks', blocks: [Uint8Array.of(0x01, 0x02, 0x03)] })));
    await c.sim.run({ until: 6000 });
    expect(bad.map((b) => [b.node, b.fields.from, b.fields.module])).toEqual([
      ['node1', from, 'sync'],
      ['node1', from, 'sync'],
    ]);
    expect(String(bad[0]!.fields.error)).toMatch(/^sync /);
    expect(String(bad[1]!.fields.error)).toMatch(/^block: /);
    expect(bad[0]!.at).toBeGreaterThanOrEqual(2000);
    expect(c.group('node1')!.counters.badMessages).toBe(2);
    expect(c.group('node2')!.counters.badMessages).toBe(0);
    // node1 kept committing after both
    expect(c.group('node1')!.blockNumber()).toBeGreaterThan(10);
    await c.checkAgreement();
  });

  // Raft: its driver traces only a change of its own (consensus) behaviour, the group only one of sync's
  it('a node turned into a forging sync peer and back says so in its trace, with the variant', async () => {
    const switches: Array<{ node: string; at: number; fields: Readonly<Record<string, unknown>> }> = [];
    const c = cluster({
      seed: 'sync-forge-switch',
      consensus: 'raft',
      network: lan,
      byzantine: { node3: { behaviour: 'forge-sync', variant: 'other-fork', fromMs: 2000, untilMs: 5000 }, node2: { behaviour: 'double-vote', fromMs: 1000, untilMs: 3000 } },
      onNodeEvent: (node, kind, fields, at) => void (kind === 'byzantine-behaviour' && switches.push({ node, at, fields })),
    });
    c.startHelloWorldLoad(5, 7000);
    await c.sim.run({ until: 7000 });
    expect(switches.map((s) => [s.node, s.at, s.fields])).toEqual([
      ['node2', 1000, { behaviour: 'double-vote', group: 1 }],
      ['node3', 2000, { behaviour: 'forge-sync', variant: 'other-fork', group: 1 }],
      ['node2', 3000, { behaviour: 'honest', group: 1 }],
      ['node3', 5000, { behaviour: 'honest', group: 1 }],
    ]);
    await c.checkAgreement();
  });
});
