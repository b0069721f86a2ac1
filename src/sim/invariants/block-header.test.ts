import { beforeAll, describe, expect, it } from 'vitest';
import type { Block } from '../../chain/index.js';
import { MAX_BLOCK_TIME_DIFF_MS } from '../../consensus/index.js';
import { cluster, type Cluster } from '../sim-cluster.js';
import { InvariantMonitor, type ProtocolViolation } from './invariant-monitor.js';

/**
 * The block-header invariant, fed blocks of a real 4-sealer PBFT chain with one header rule broken
 * (as a replica that skipped that check would store them). Re-signing is not needed: the other
 * invariants the altered hash breaks are simply not what these tests look at.
 */
describe('the block-header invariant', () => {
  let c: Cluster;
  let blocks: Block[];

  beforeAll(async () => {
    c = cluster({ seed: 'block-header-invariant' });
    c.startHelloWorldLoad(8, 5_000);
    await c.sim.run({ until: 6_000 });
    const group = c.group('node0')!;
    blocks = [];
    for (let n = 1; n <= 3; n++) blocks.push((await group.blockByNumber(n))!.block);
  }, 60_000);

  function monitor() {
    const found: ProtocolViolation[] = [];
    const m = new InvariantMonitor({ chain: c.chain, isHonest: () => true, report: (v) => found.push(v) });
    return {
      stored: (node: string, block: Block, via = 'consensus') => m.onNodeEvent(node, 'block-stored', { group: 1, block, via }, c.sim.now),
      header: () => found.filter((v) => v.invariant === 'block-header').map((v) => v.detail),
    };
  }
  const withHeader = (b: Block, header: Partial<Block['header']>): Block => ({ ...b, header: { ...b.header, ...header } });

  it('passes the real blocks, stored in order', () => {
    const m = monitor();
    for (const b of blocks) m.stored('node1', b);
    expect(m.header()).toEqual([]);
  });

  it('names a block without transactions', () => {
    const m = monitor();
    m.stored('node1', blocks[0]!);
    m.stored('node1', { ...blocks[1]!, transactions: [] });
    expect(m.header()).toEqual([expect.stringMatching(/^node1 committed block 2 \(0x[0-9a-f]{8}…, by consensus\), which has no transactions$/)]);
  });

  it('names a sealer index outside the sealer list, and passes the last index inside it', () => {
    const m = monitor();
    m.stored('node1', withHeader(blocks[0]!, { sealer: 4 }));
    m.stored('node2', withHeader(blocks[0]!, { sealer: 3 }));
    expect(m.header()).toEqual([expect.stringMatching(/^node1 committed block 1 .*, which names sealer index 4 of 4 sealers$/)]);
  });

  it("names a block stamped at or before its parent's time, by sync as well, and passes one a millisecond later", () => {
    const [one, two] = [blocks[0]!, blocks[1]!];
    const same = monitor();
    same.stored('node1', one);
    same.stored('node1', withHeader(two, { timestamp: one.header.timestamp }), 'sync');
    expect(same.header()).toEqual([expect.stringMatching(new RegExp(`^node1 committed block 2 .*by sync\\), which is stamped ${one.header.timestamp}, not after its parent's ${one.header.timestamp}$`))]);

    const later = monitor();
    later.stored('node1', one);
    later.stored('node1', withHeader(two, { timestamp: one.header.timestamp + 1 }));
    expect(later.header()).toEqual([]);
  });

  it("names a block committed by consensus stamped more than the allowed 10 minutes ahead of the node's clock; not by sync, nor at the limit", () => {
    const clock = c.sim.node('node1').clockNow;
    const ahead = (ms: number) => withHeader(blocks[0]!, { timestamp: clock + ms });
    const far = monitor();
    far.stored('node1', ahead(MAX_BLOCK_TIME_DIFF_MS + 5_000));
    expect(far.header()).toEqual([expect.stringMatching(/^node1 committed block 1 by consensus stamped \d+, 605 s ahead of its clock \(10 min allowed\)$/)]);

    const synced = monitor();
    synced.stored('node1', ahead(MAX_BLOCK_TIME_DIFF_MS + 5_000), 'sync');
    expect(synced.header()).toEqual([]);

    const limit = monitor();
    limit.stored('node1', ahead(MAX_BLOCK_TIME_DIFF_MS));
    expect(limit.header()).toEqual([]);
  });
});
