import { describe, expect, it } from 'vitest';
import { NONCE_WINDOW } from '../txpool/index.js';
import { cluster } from './sim-cluster.js';

// The nonce check covers the last NONCE_WINDOW blocks (FISCO: block_limit + 1). A running node
// forgets a block's nonces when the block NONCE_WINDOW above it commits; a node opening its group
// must remember exactly the same blocks, read from its ledger: no fewer (a reused nonce let in) and
// no more (a nonce refused that the running nodes accept, for good: nothing would make it forget).

describe('group: the nonce window after a restart is the running node\'s', () => {
  it('on a chain longer than the window, a restarted node admits a nonce of the block just below it and refuses one of the lowest block inside it', async () => {
    const c = cluster({ seed: 'nonce-window', sealers: 1 });
    const to = new Uint8Array(20).fill(0x42);
    const target = NONCE_WINDOW + 3;
    const nonceOf = (k: number) => 5_000n + BigInt(k);
    // one transaction a block, nonce 5000 + k for the k-th
    for (let k = 1; k <= target; k++) {
      c.sim.at(k * 600, async () => {
        const height = c.group('node0')!.blockNumber();
        expect((await c.submit('node0', c.client.build({ to, nonce: nonceOf(k), blockLimit: BigInt(height + 500) }).raw))?.accepted).toBe(true);
      });
    }
    await c.sim.run({ until: (target + 1) * 600 });
    const height = c.group('node0')!.blockNumber();
    expect(height).toBe(target);
    // the nonce of block b, as committed (one transaction each)
    const committedNonce = async (b: number) => (await c.group('node0')!.blockByNumber(b))!.block.transactions[0]!.body.nonce;
    const below = height - NONCE_WINDOW; // the highest block out of the window
    const lowest = below + 1;
    c.sim.crash('node0');
    c.sim.restart('node0');
    await c.sim.run({ until: (target + 1) * 600 + 100 });
    const g = c.group('node0')!;
    const limit = BigInt(height + 500);
    for (const b of [below, below - 1]) {
      const reuse = c.client.build({ to, data: Uint8Array.of(b & 0xff), nonce: await committedNonce(b), blockLimit: limit });
      expect(await g.submit(reuse.raw), `nonce of block ${b}`).toMatchObject({ accepted: true });
    }
    const inside = c.client.build({ to, data: Uint8Array.of(1), nonce: await committedNonce(lowest), blockLimit: limit });
    expect(await g.submit(inside.raw)).toEqual({ accepted: false, rejection: expect.objectContaining({ name: 'NonceCheckFail', reason: `nonce 0x${(await committedNonce(lowest)).toString(16)} was used in block ${lowest}` }) });
  }, 60_000);
});
