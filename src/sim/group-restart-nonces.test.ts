import { describe, expect, it } from 'vitest';
import { lan } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

// A node learns the nonces of the chain's last blocks from its ledger when it opens a group, so a
// restarted node refuses a transaction that reuses a nonce committed before the restart (FISCO's
// nonce check covers the last block_limit blocks).

describe('group: nonces remembered across a restart', () => {
  it('a restarted node refuses a new transaction reusing a nonce committed before the crash, naming the block, and admits a fresh nonce', async () => {
    const c = cluster({ seed: 'restart-nonces', network: lan });
    await c.sim.run({ until: 2_000 });
    const to = new Uint8Array(20).fill(0x42);
    const limit = () => BigInt(c.group('node0')!.blockNumber() + 500);
    const first = c.client.build({ to, data: Uint8Array.of(1), nonce: 777n, blockLimit: limit() });
    c.sim.at(2_000, async () => expect((await c.submit('node0', first.raw))?.accepted).toBe(true));
    await c.sim.run({ until: 5_000 });
    const record = await c.group('node3')!.transaction(first.hash);
    expect(record, "the first transaction is on chain").toBeDefined();
    c.sim.crash('node3');
    await c.sim.run({ until: 5_500 });
    c.sim.restart('node3');
    await c.sim.run({ until: 6_000 });
    const g = c.group('node3')!;
    const reuse = c.client.build({ to, data: Uint8Array.of(2), nonce: 777n, blockLimit: limit() });
    const fresh = c.client.build({ to, data: Uint8Array.of(3), nonce: 778n, blockLimit: limit() });
    expect(await g.submit(reuse.raw)).toEqual({ accepted: false, rejection: expect.objectContaining({ name: 'NonceCheckFail', reason: `nonce 0x309 was used in block ${record!.blockNumber}` }) });
    expect(await g.submit(fresh.raw)).toMatchObject({ accepted: true });
    // the committed transaction itself, sent again: already on chain (the ledger says so, not the nonce)
    expect(await g.submit(first.raw)).toEqual({ accepted: false, rejection: expect.objectContaining({ name: 'AlreadyInChain' }) });
  });
});
