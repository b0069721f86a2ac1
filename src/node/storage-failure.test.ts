import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TransactionBuilder, type GroupGenesis } from '../chain/index.js';
import { bytesEqual, toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { LEDGER_KEYS } from '../ledger/index.js';
import { Simulation, type Env } from '../runtime/index.js';
import { FaultyStore, type KvStore, type KvStoreFactory, type StorageFailure, type StoreCall } from '../storage/index.js';
import { Node } from './node.js';
import { PBFT_LOCK_KEY } from './pbft-driver.js';
import { RAFT_STATE_KEY, decodeRaftState } from './raft-driver.js';
import { seededKeys } from './seeded-keys.test-helper.js';

const suite = getSuite('ecdsa');
const version = ProtocolVersion.parse('2.11.0');

/** The node's disk: each store it opens goes through a FaultyStore the test can fail on command. */
class FaultyDisk implements KvStoreFactory {
  readonly stores = new Map<string, FaultyStore>();
  constructor(private readonly inner: KvStoreFactory) {}
  async open(name: string): Promise<KvStore> {
    const store = new FaultyStore(await this.inner.open(name), `/chain/node/data/${name}`);
    this.stores.set(name, store);
    return store;
  }
}

const puts = (call: StoreCall, key: Uint8Array) => call.operations.some((op) => op.type === 'put' && bytesEqual(op.key, key));

interface Chain {
  readonly sim: Simulation<Node>;
  readonly disks: FaultyDisk[];
  readonly failures: Array<{ node: number; group: number; failure: StorageFailure; at: number }>;
  readonly logs: string[][];
  /** Messages each node put on the wire, with their times. */
  readonly sent: Array<Array<{ at: number; to: string }>>;
  node(i: number): Node;
  /** Starts sending one transaction every 100 ms to the given nodes, from `from` to `until`. */
  load(targets: number[], from: number, until: number): void;
}

function chain(consensusType: 'pbft' | 'raft', n: number, seed: string): Chain {
  const { random, keys, ids } = seededKeys(seed, n, suite);
  const genesis: GroupGenesis = { groupId: 1, consensusType, sealers: ids, timestamp: Date.UTC(2026, 0, 1) };
  const logs: string[][] = ids.map(() => []);
  const sim = new Simulation<Node>({ seed, network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } }, onLog: (name, line) => logs[Number(name.slice(4))]!.push(line) });
  const disks: FaultyDisk[] = [];
  const failures: Chain['failures'] = [];
  ids.forEach((id, i) =>
    sim.addNode(
      `node${i}`,
      (env: Env) => {
        // a new incarnation gets a healthy disk over the same data
        const disk = new FaultyDisk(env.storage);
        disks[i] = disk;
        return Node.start({
          env: { ...env, storage: disk },
          key: keys[i]!,
          suite,
          version,
          groups: [genesis],
          onStorageFailure: (group, failure) => failures.push({ node: i, group, failure, at: env.clock.now() - sim.epochMs }),
        });
      },
      { nodeId: id },
    ),
  );
  const sent: Chain['sent'] = ids.map(() => []);
  sim.network.observe({ sent: (from, to, _payload, timeMs) => sent[Number(from.slice(4))]!.push({ at: timeMs, to }) });
  const client = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: 1n });
  const node = (i: number) => sim.node(`node${i}`).handle!;
  return {
    sim,
    disks,
    failures,
    logs,
    sent,
    node,
    load: (targets, from, until) => {
      for (let t = from, k = 0; t < until; t += 100, k++) {
        const target = targets[k % targets.length]!;
        sim.at(t, async () => {
          const handle = sim.node(`node${target}`).handle;
          const group = handle?.group(1);
          if (group) await group.submit(client.build({ to: new Uint8Array(20).fill(1), blockLimit: BigInt(group.blockNumber() + 500) }).raw);
        });
      }
    },
  };
}

async function blockHashes(node: Node, top: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let n = 1; n <= top; n++) hashes.push(toHex((await node.groupById(1)!.blockByNumber(n))!.hash));
  return hashes;
}

/** What the failed node must show: the group stopped, an error line naming the store and the operation, JSON-RPC refusing, nothing sent. */
async function expectStopped(c: Chain, i: number, operation: string): Promise<void> {
  expect(c.failures).toHaveLength(1);
  const { failure, at } = c.failures[0]!;
  expect(c.failures[0]).toMatchObject({ node: i, group: 1 });
  expect(failure.operation).toBe(operation);
  expect(failure.location).toBe('/chain/node/data/group1');
  expect(failure.message).toMatch(/EIO: input\/output error \(injected fault\)/);
  expect(c.logs[i]!.some((l) => /^error\|.*\[g:1\]\[STORAGE\] storage failure, the group stops,operation=write,file=\/chain\/node\/data\/group1,error=write of \/chain\/node\/data\/group1 failed: EIO/.test(l))).toBe(true);
  const node = c.node(i);
  expect(node.group(1)).toBeUndefined();
  // JSON-RPC answers with this instead of data (src/rpc/methods.test.ts)
  expect(node.stoppedGroup(1)).toMatch(/^group 1 stopped after a storage failure \(write of \/chain\/node\/data\/group1 failed: EIO/);
  // not a message left the node after the failure
  expect(c.sent[i]!.filter((m) => m.at > at)).toEqual([]);
}

describe('a storage failure stops the group: nothing more is written, sent or answered (FISCO raises SIGTERM)', () => {
  it('PBFT: a failed block commit on a sealer; the others go on; restarted on a healthy disk it resumes from its last good block and catches up', async () => {
    const c = chain('pbft', 4, 'commit-failure');
    c.load([0, 1, 2, 3], 100, 12_000);
    let heightAtFailure = -1;
    c.sim.at(3_000, () => {
      heightAtFailure = c.node(3).group(1)!.blockNumber();
      void c.disks[3]!.stores.get('group1')!.failNext({ when: (call) => puts(call, LEDGER_KEYS.head) });
    });
    await c.sim.run({ until: 8_000 });
    await expectStopped(c, 3, 'write');
    const stuck = c.node(3).groupById(1)!.blockNumber();
    // the block whose write failed is not there: the node stopped at its last good block
    expect(stuck).toBe(heightAtFailure);
    expect(c.node(0).group(1)!.blockNumber()).toBeGreaterThan(stuck + 3);

    c.sim.crash('node3');
    c.sim.restart('node3');
    await c.sim.run({ until: 16_000 });
    const top = c.node(0).group(1)!.blockNumber();
    expect(c.node(3).group(1)!.blockNumber()).toBe(top);
    expect(await blockHashes(c.node(3), top)).toEqual(await blockHashes(c.node(0), top));
  });

  it('PBFT: a failed lock write; the node never sends the Commit it could not make durable', async () => {
    const c = chain('pbft', 4, 'lock-failure');
    c.load([0, 1, 2, 3], 100, 8_000);
    c.sim.at(2_000, () => void c.disks[1]!.stores.get('group1')!.failNext({ when: (call) => puts(call, PBFT_LOCK_KEY) }));
    await c.sim.run({ until: 8_000 });
    await expectStopped(c, 1, 'write');
    c.sim.crash('node1');
    c.sim.restart('node1');
    await c.sim.run({ until: 14_000 });
    const top = c.node(0).group(1)!.blockNumber();
    expect(c.node(1).group(1)!.blockNumber()).toBe(top);
    expect(await blockHashes(c.node(1), top)).toEqual(await blockHashes(c.node(2), top));
  });

  it('Raft: a failed vote write; the grant never leaves the node, and after a restart the group elects and commits again', async () => {
    const c = chain('raft', 3, 'vote-failure');
    c.load([0, 1, 2], 100, 14_000);
    await c.sim.run({ until: 3_000 });
    const leader = [0, 1, 2].find((i) => {
      const status = c.node(i).group(1)!.consensusStatus();
      return status.kind === 'raft' && status.leaderId === c.node(i).nodeId;
    })!;
    expect(leader).toBeDefined();
    const voter = (leader + 1) % 3;
    // the next vote this node makes (for a candidate or for itself) fails to reach the disk
    const stored = await c.disks[voter]!.stores.get('group1')!.get(RAFT_STATE_KEY);
    const votedTerm = stored ? decodeRaftState(stored).votedTerm : 0;
    void c.disks[voter]!.stores.get('group1')!.failNext({
      when: (call) => call.operations.some((op) => op.type === 'put' && bytesEqual(op.key, RAFT_STATE_KEY) && decodeRaftState(op.value).votedTerm > votedTerm),
    });
    c.sim.crash(`node${leader}`);
    await c.sim.run({ until: 8_000 });
    await expectStopped(c, voter, 'write');

    c.sim.restart(`node${leader}`);
    c.sim.crash(`node${voter}`);
    c.sim.restart(`node${voter}`);
    await c.sim.run({ until: 20_000 });
    const top = Math.max(...[0, 1, 2].map((i) => c.node(i).group(1)!.blockNumber()));
    expect(top).toBeGreaterThan(0);
    for (const i of [0, 1, 2]) expect(await blockHashes(c.node(i), top - 1)).toEqual(await blockHashes(c.node(leader), top - 1));
  });
});
