// What a node reports about each block it stores (the block-committed trace and the block-stored
// probe the invariant monitor reads), and about its group's membership changing.
import { describe, expect, it } from 'vitest';
import { encodeFunctionCall } from '../abi/index.js';
import { fromHex } from '../codec/index.js';
import { keccak256 } from '../crypto/index.js';
import { InvariantMonitor, type ProtocolViolation } from './invariants/invariant-monitor.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };
const CONSENSUS = fromHex('0000000000000000000000000000000000001003');

describe('block and membership reports', () => {
  it('name failed transactions per block, each change of the sealer or observer list from the block it takes effect, and feed the monitor every stored block', async () => {
    const events: Array<{ node: string; kind: string; fields: Readonly<Record<string, unknown>> }> = [];
    const listeners: Array<(node: string, kind: string, fields: Readonly<Record<string, unknown>>, atMs: number) => void> = [];
    const c = cluster({
      seed: 'commit-trace',
      sealers: 4,
      spare: 1,
      network: lan,
      onNodeEvent: (node, kind, fields, atMs) => {
        if (kind === 'block-committed' || kind === 'membership-changed') events.push({ node, kind, fields });
        for (const l of listeners) l(node, kind, fields, atMs);
      },
    });
    const found: ProtocolViolation[] = [];
    const monitor = new InvariantMonitor({ chain: c.chain, isHonest: () => true, report: (v) => found.push(v) });
    listeners.push(monitor.onNodeEvent);
    c.startHelloWorldLoad(5, 20_000);
    const g = (n: string) => c.group(n)!;
    const hashes: Record<string, Uint8Array> = {};
    const send = (label: string, at: number, data: Uint8Array, toConsensus = true) =>
      c.sim.at(at, async () => {
        const tx = c.client.build({ ...(toConsensus ? { to: CONSENSUS } : {}), data, blockLimit: BigInt(g('node0').blockNumber() + 500) });
        expect((await c.submit('node0', tx.raw))?.accepted, label).toBe(true);
        hashes[label] = tx.hash;
      });
    const call = (signature: string, node: string) => encodeFunctionCall(signature, [node], keccak256);
    send('observer', 2_000, call('addObserver(string)', c.ids[4]!));
    send('sealer', 5_000, call('addSealer(string)', c.ids[4]!));
    send('remove', 9_000, call('remove(string)', c.ids[3]!));
    // a contract whose init code is the INVALID opcode: its deployment fails
    send('failing', 12_000, Uint8Array.of(0xfe), false);
    await c.sim.run({ until: 20_000 });

    const at = async (label: string) => {
      const record = await g('node0').transaction(hashes[label]!);
      expect(record, label).toBeDefined();
      return record!.blockNumber;
    };
    const [observerAt, sealerAt, removeAt, failingAt] = [await at('observer'), await at('sealer'), await at('remove'), await at('failing')];
    const changes = (node: string) => events.filter((e) => e.node === node && e.kind === 'membership-changed').map((e) => e.fields);
    expect(changes('node0')).toEqual([
      { group: 1, from: observerAt + 1, sealers: 4, observers: 1, me: 'sealer' },
      { group: 1, from: sealerAt + 1, sealers: 5, observers: 0, me: 'sealer' },
      { group: 1, from: removeAt + 1, sealers: 4, observers: 0, me: 'sealer' },
    ]);
    expect(changes('node4').map((f) => f['me'])).toEqual(['observer', 'sealer', 'sealer']);
    expect(changes('node3').map((f) => f['me'])).toEqual(['sealer', 'sealer', 'none']);

    const committed = events.filter((e) => e.node === 'node0' && e.kind === 'block-committed');
    expect(committed.filter((e) => e.fields['failed'] !== 0).map((e) => [e.fields['number'], e.fields['failed']])).toEqual([[failingAt, 1]]);
    expect((await g('node0').transaction(hashes['failing']!))!.receipt.status).not.toBe(0);

    // the monitor checked the blocks as they were stored (no audit here), and found nothing wrong
    expect(found).toEqual([]);
    expect(monitor.counts.blocksChecked).toBeGreaterThanOrEqual(g('node0').blockNumber());
  });
});
