// More of the invariant monitor's checks at their edges, fed hand-made reports on a finished
// chain. A file of its own beside invariant-monitor.test.ts: see docs/mutation.md, "Editing a
// selected test file".
import { describe, expect, it } from 'vitest';
import type { Block } from '../../chain/index.js';
import { bigintToBytes, fromHex, rlpEncode, toHex } from '../../codec/index.js';
import { PBFT_TYPES } from '../../consensus/index.js';
import { encodeFrame } from '../../node/index.js';
import { cluster } from '../sim-cluster.js';
import { InvariantMonitor, type ProtocolViolation } from './invariant-monitor.js';

const int = (n: number) => bigintToBytes(BigInt(n));
const hash = (n: number) => fromHex(`0x${n.toString(16).padStart(64, '0')}`);
const SIG = new Uint8Array(65).fill(7);
const pbftFrame = (type: 'sign' | 'commit', height: number, view: number, idx: number, blockHash: Uint8Array) =>
  encodeFrame(1, 'pbft', rlpEncode([int(PBFT_TYPES[type]), int(height), int(view), int(idx), blockHash, SIG, SIG]));

/** A 4-sealer PBFT chain run under load for a few seconds, once for the file. */
let run: Promise<ReturnType<typeof cluster>> | undefined;
function chain() {
  run ??= (async () => {
    const c = cluster({ seed: 'monitor-edges' });
    c.startHelloWorldLoad(8, 4000);
    await c.sim.run({ until: 4000 });
    return c;
  })();
  return run;
}

/** A fresh monitor on the chain, fed hand-made reports (the `ignored` invariants left out). */
function monitorOn(c: ReturnType<typeof cluster>, ignored: readonly string[] = []) {
  const found: ProtocolViolation[] = [];
  const monitor = new InvariantMonitor({ chain: c.chain, isHonest: (n) => n !== 'node3', report: (v) => void (ignored.includes(v.invariant) ? undefined : found.push(v)) });
  const stored = (node: string, block: Block) => monitor.onNodeEvent(node, 'block-stored', { group: 1, block, via: 'consensus' }, 1);
  return { monitor, found, stored };
}

describe('the invariant monitor at its edges', () => {
  it('applied block: a block at or below the head applied again is reported', async () => {
    const c = await chain();
    const at = async (n: number) => (await c.group('node0')!.blockByNumber(n))!.block;
    const { found, stored } = monitorOn(c);
    stored('node1', await at(1));
    stored('node1', await at(2));
    stored('node1', await at(2));
    stored('node1', await at(1));
    expect(found.map((v) => [v.invariant, v.detail])).toEqual([
      ['applied-block', 'node1 applied block 2 (by consensus) on its head 2'],
      ['applied-block', 'node1 applied block 1 (by consensus) on its head 2'],
    ]);
  }, 60_000);

  it('lock: never to another block in the lock\'s own view, however many Signs for it reached the node', async () => {
    const { monitor, found } = monitorOn(await chain(), ['pbft-view-change', 'pbft-leader-proposal', 'pbft-commit-justified']);
    monitor.onNodeEvent('node1', 'block-executed', { group: 1, number: 56, hash: toHex(hash(1)) }, 1);
    monitor.onSent('node1', 'node2', pbftFrame('sign', 56, 2, 1, hash(1)), 10);
    monitor.onSent('node1', 'node2', pbftFrame('commit', 56, 2, 1, hash(1)), 11);
    // n − f Signs for another block in the same view 2 (byzantine equivocation at work) do not move the lock
    for (const [from, idx] of [['node0', 0], ['node2', 2], ['node3', 3]] as const) monitor.onDelivered(from, 'node1', pbftFrame('sign', 56, 2, idx, hash(2)));
    monitor.onSent('node1', 'node2', pbftFrame('commit', 56, 2, 1, hash(2)), 20);
    expect(found.map((v) => v.invariant)).toEqual(['pbft-lock']);
    expect(found[0]!.detail).toBe('node1 sent a Commit for 0x00000000… at height 56 (view 2, 11 ms), then a Commit for 0x00000000… in view 2');
  }, 60_000);
});
