// What a replica checks of a proposal's transactions that its pool never saw, before executing it
// (Group.proposalTransactions): the answer is the transactions, or the first reason to refuse.
import { describe, expect, it } from 'vitest';
import { BLOCK_LIMIT_RANGE } from '../txpool/index.js';
import { corruptSignature } from '../node/bad-block.js';
import type { Group } from '../node/index.js';
import { cluster } from './sim-cluster.js';

const to = new Uint8Array(20).fill(0x42);

/** A finished cluster run, then `check` inside one event with node0's group (nodes are touched only inside events). */
async function withGroup(options: Parameters<typeof cluster>[0], check: (group: Group, c: ReturnType<typeof cluster>) => Promise<void>): Promise<void> {
  const c = cluster(options);
  c.startHelloWorldLoad(5, 2_000);
  await c.sim.run({ until: 2_500 });
  let ran = false;
  c.sim.at(2_500, async () => {
    await check(c.group('node0')!, c);
    ran = true;
  });
  await c.sim.run({ until: 2_501 });
  expect(ran).toBe(true);
}

describe('the transactions of a proposal, not in the pool', () => {
  it('admit blockLimits from the block itself to block − 1 + BLOCK_LIMIT_RANGE, and nothing outside', async () => {
    await withGroup({ seed: 'proposal-block-limit' }, async (group, c) => {
      const number = group.blockNumber() + 1;
      const tx = (limit: number) => c.client.build({ to, blockLimit: BigInt(limit) });
      for (const limit of [number, number - 1 + BLOCK_LIMIT_RANGE]) expect(await group.proposalTransactions([tx(limit).raw], number), `blockLimit ${limit}`).toHaveLength(1);
      for (const limit of [number - 1, number + BLOCK_LIMIT_RANGE]) expect(await group.proposalTransactions([tx(limit).raw], number)).toBe(`transaction 0: blockLimit ${limit} does not admit block ${number}`);
    });
  });

  it('refuse a transaction whose sender cannot be recovered, naming it', async () => {
    await withGroup({ seed: 'proposal-signature' }, async (group, c) => {
      const number = group.blockNumber() + 1;
      const good = c.client.build({ to, blockLimit: BigInt(number + 10) });
      const bad = corruptSignature(group.suite, c.client.build({ to, blockLimit: BigInt(number + 10) }));
      expect(await group.proposalTransactions([good.raw, bad], number)).toMatch(/^transaction 1: \S/);
    });
  });

  it('from a 2.0.0-rc1 chain, whose payloads carry no chainId or groupId, are taken', async () => {
    await withGroup({ seed: 'proposal-rc1', version: '2.0.0-rc1' }, async (group, c) => {
      expect(group.version.txGeneration).toBe('rc1');
      const number = group.blockNumber() + 1;
      const txs = [c.client.build({ to, blockLimit: BigInt(number + 10) }), c.client.build({ to, blockLimit: BigInt(number + 10) })];
      const taken = await group.proposalTransactions(
        txs.map((t) => t.raw),
        number,
      );
      expect(Array.isArray(taken) ? taken.map((t) => t.hash) : taken).toEqual(txs.map((t) => t.hash));
    });
  });
});
