// How a group takes gossiped transactions into its pool, seen from one node among silent peers.
import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TransactionBuilder, type GroupGenesis } from '../chain/index.js';
import { getSuite } from '../crypto/index.js';
import { Simulation, type Env } from '../runtime/index.js';
import { decodeSyncMessage, encodeSyncMessage } from '../sync/index.js';
import { TX_REGOSSIP_MS } from './group.js';
import { Node } from './node.js';
import { decodeFrame } from './p2p-frame.js';
import { seededKeys } from './seeded-keys.test-helper.js';

const suite = getSuite('ecdsa');
const version = ProtocolVersion.parse('2.11.0');

/**
 * A four-sealer PBFT group where only node 3 runs a Twinchain node: the other three are connected
 * but silent, so nothing commits and every transaction stays in node 3's pool of `poolLimit`.
 */
function loneSealer(seed: string, poolLimit: number) {
  const { random, keys, ids } = seededKeys(seed, 4, suite);
  const genesis: GroupGenesis = { groupId: 1, consensusType: 'pbft', sealers: ids, timestamp: Date.UTC(2026, 0, 1) };
  const sim = new Simulation<Node | undefined>({ seed, trace: { keep: true } });
  ids.forEach((id, i) =>
    sim.addNode(
      `node${i}`,
      (env: Env) => {
        if (i === 3) return Node.start({ env, key: keys[i]!, suite, version, groups: [genesis], poolLimit });
        env.transport.onReceive(() => undefined);
        return undefined;
      },
      { nodeId: id },
    ),
  );
  const client = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: 1n });
  const tx = () => client.build({ to: new Uint8Array(20).fill(1), blockLimit: 500n }).raw;
  const group = () => sim.node('node3').handle!.groupById(1)!;
  /** The transactions messages node 3 sent, by time: how many transactions each carried (one entry per message, not per peer). */
  const gossip: Array<{ at: number; count: number }> = [];
  sim.network.observe({
    sent(from, to, payload, timeMs) {
      const frame = decodeFrame(payload);
      if (from !== 'node3' || to !== 'node0' || 'error' in frame || frame.module !== 'sync') return;
      const m = decodeSyncMessage(frame.payload);
      if (m.type === 'transactions') gossip.push({ at: timeMs, count: m.transactions.length });
    },
  });
  const regossiped = () => sim.trace.records.filter((r) => r.node === 'node3' && r.kind === 'tx-regossiped').map((r) => ({ t: r.t, count: r.fields['count'] }));
  return { sim, ids, tx, group, regossiped, gossip, client };
}

describe('gossiped transactions', () => {
  it.each([
    ['full', 2],
    ['with room', 10],
  ])('one the pool holds counts as heard from that peer, the pool %s: it is not sent on again at the next round', async (_, limit) => {
    const c = loneSealer(`heard-${limit}`, limit);
    const [a, b] = [c.tx(), c.tx()];
    c.sim.at(100, async () => {
      await c.group().submit(a);
      await c.group().submit(b);
      // full: the pool refuses a third
      if (limit === 2) await expect(c.group().submit(c.tx())).resolves.toMatchObject({ accepted: false, rejection: { name: 'TxPoolIsFull' } });
    });
    // a peer sends a back shortly before the round that would have sent both again
    c.sim.at(2 * TX_REGOSSIP_MS - 500, () => c.group().onFrame(c.ids[0]!, 'sync', encodeSyncMessage({ type: 'transactions', transactions: [a] })));
    await c.sim.run({ until: 2 * TX_REGOSSIP_MS + 1 });
    expect(c.regossiped()).toEqual([{ t: 2 * TX_REGOSSIP_MS, count: 1 }]);
  });

  it.each([
    ['a rejected one last', ['ok', 'ok', 'expired']],
    ['a rejected one among them', ['ok', 'expired', 'ok']],
  ])('a burst of client submissions goes to the peers as one message once its last is answered, %s', async (_, kinds) => {
    const c = loneSealer(`burst-${kinds.join('-')}`, 10);
    c.sim.at(100, async () => {
      // submitted together, as a JSON-RPC batch is: all queued before the first is admitted
      const results = await Promise.all(kinds.map((k) => c.group().submit(k === 'ok' ? c.tx() : c.client.build({ to: new Uint8Array(20), blockLimit: 0n }).raw)));
      expect(results.map((r) => r.accepted)).toEqual(kinds.map((k) => k === 'ok'));
    });
    await c.sim.run({ until: 200 });
    expect(c.gossip).toEqual([{ at: 100, count: 2 }]);
  });
});
