// Block sync checks a downloaded block's signatures as FISCO does (recover the key from r, s, v
// and compare): a peer serving the real blocks with every signature's recovery id flipped is
// refused, though r and s still verify against the sealers' keys (issue 43).
import { describe, expect, it } from 'vitest';
import type { Block } from '../chain/index.js';
import type { Group } from '../node/index.js';
import { lan } from './byzantine.test-helper.js';
import { CommitMonitor } from './commit-monitor.js';
import { cluster } from './sim-cluster.js';

const HONEST = ['node0', 'node1', 'node2'];


function flipV(signature: Uint8Array): Uint8Array {
  const out = Uint8Array.from(signature);
  out[64] = out[64]! ^ 1;
  return out;
}

/** The group serves its real blocks by sync, each signature's v flipped (its status is its real one). */
function serveFlippedSignatures(group: Group): { served: number } {
  const count = { served: 0 };
  const flipper = {
    advertisedHeight: () => group.chain.height,
    advertisedHash: () => group.chain.headHash,
    newlyConnected: (): string[] => [],
    answer: async (from: number, n: number): Promise<Block[]> => {
      const out: Block[] = [];
      for (let k = from; k < from + n && k <= group.chain.height; k++) {
        const block = (await group.chain.ledger.blockByNumber(k))!.block;
        out.push({ ...block, signatureList: block.signatureList.map((s) => ({ index: s.index, signature: flipV(s.signature) })) });
      }
      count.served += out.length;
      return out;
    },
  };
  group.syncing.adversary = flipper as unknown as Group['syncing']['adversary'];
  return count;
}

describe('block sync: signatures checked by recovery', () => {
  it('real blocks whose signatures have a flipped v are refused; the lagging node syncs once an honest peer serves them', async () => {
    const monitor = new CommitMonitor(HONEST);
    const rejected: Array<Readonly<Record<string, unknown>>> = [];
    const synced: number[] = [];
    const c = cluster({
      seed: 'sync-flipped-v',
      network: lan,
      onNodeEvent: (node, kind, fields, atMs) => {
        monitor.onNodeEvent(node, kind, fields, atMs);
        if (kind === 'sync-block-rejected' && node === 'node2') rejected.push(fields);
        if (kind === 'block-committed' && node === 'node2' && fields.via === 'sync') synced.push(atMs);
      },
    });
    // every peer of node2 serves flipped signatures until 18 s; node2 is down from 4 s to 12 s
    const served: Array<{ served: number }> = [];
    c.sim.at(1, () => {
      for (const name of ['node0', 'node1', 'node3']) served.push(serveFlippedSignatures(c.group(name)!));
    });
    c.startHelloWorldLoad(10, 50_000);
    c.sim.at(4_000, () => c.sim.crash('node2'));
    c.sim.at(12_000, () => c.sim.restart('node2'));
    c.sim.at(18_000, () => {
      for (const name of ['node0', 'node1', 'node3']) c.group(name)!.syncing.adversary = undefined;
    });
    // a peer that served a bad block is passed over for 30 s (BAD_PEER_PENALTY_MS)
    await c.sim.run({ until: 50_000 });

    expect(served.reduce((sum, s) => sum + s.served, 0)).toBeGreaterThan(0);
    expect(rejected.length).toBeGreaterThan(0);
    for (const fields of rejected) expect(String(fields.reason)).toBe('0 valid sealer signatures, 3 needed');
    // nothing came in by sync while only flipped signatures were served; then the honest blocks did
    expect(synced.filter((at) => at < 18_000)).toEqual([]);
    expect(synced.length).toBeGreaterThan(0);
    expect(monitor.conflicts).toEqual([]);
    await c.checkAgreement([...HONEST, 'node3']);
  });
});
