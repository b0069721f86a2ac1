// What a group does once a storage failure stopped it (nothing), how it takes errors out of its
// consensus driver, and how it drops and logs messages from nodes outside its lists.
import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TransactionBuilder, type GroupGenesis } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { Simulation, type Env, type TraceRecord } from '../runtime/index.js';
import { FaultyStoreFactory, StorageFailure } from '../storage/index.js';
import { encodeSyncMessage } from '../sync/index.js';
import type { ConsensusDriver } from './consensus-driver.js';
import type { Group } from './group.js';
import { logLines } from './log-lines.js';
import { Node } from './node.js';
import type { ModuleName } from './p2p-frame.js';
import { PbftDriver } from './pbft-driver.js';
import { seededKeys } from './seeded-keys.test-helper.js';

const suite = getSuite('ecdsa');
const version = ProtocolVersion.parse('2.11.0');
const STRANGER_LOG_INTERVAL_MS = 60_000;

/** A PBFT driver that records what reaches it, and can be told to write to the store or throw on a message. */
class RecordingDriver implements ConsensusDriver {
  readonly calls: string[] = [];
  /** What the next onMessage does before (instead of) handing the message on. */
  next: { write: Uint8Array } | { throw: Error } | undefined;
  constructor(
    private readonly inner: ConsensusDriver,
    private readonly group: Group,
  ) {}
  get kind(): 'pbft' | 'raft' {
    return this.inner.kind;
  }
  start(now: number): Promise<void> {
    return this.inner.start(now);
  }
  async onMessage(from: string, module: ModuleName, payload: Uint8Array, now: number): Promise<void> {
    this.calls.push(`message ${module} ${toHex(payload)}`);
    const next = this.next;
    this.next = undefined;
    if (next && 'throw' in next) throw next.throw;
    if (next) return this.group.store.put(next.write, next.write);
    return this.inner.onMessage(from, module, payload, now);
  }
  onBlockCommitted(...args: Parameters<ConsensusDriver['onBlockCommitted']>): Promise<void> {
    this.calls.push(`committed ${toHex(args[0].hash)}`);
    return this.inner.onBlockCommitted(...args);
  }
  onPoolChanged(now: number): Promise<void> {
    this.calls.push('pool changed');
    return this.inner.onPoolChanged(now);
  }
  status(): ReturnType<ConsensusDriver['status']> {
    return this.inner.status();
  }
  pbftView(): bigint | undefined {
    return this.inner.pbftView();
  }
  stop(): void {
    this.inner.stop();
  }
}

/** Four PBFT sealers under a steady load; node 3 runs on a disk that fails on command, with a recording driver. */
function chain(seed: string) {
  const { random, keys, ids } = seededKeys(seed, 4, suite);
  const genesis: GroupGenesis = { groupId: 1, consensusType: 'pbft', sealers: ids, timestamp: Date.UTC(2026, 0, 1) };
  const logs: string[][] = ids.map(() => []);
  const sim = new Simulation<Node>({ seed, trace: { keep: true }, network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } }, onLog: (name, line) => logs[Number(name.slice(4))]!.push(line) });
  let disk: FaultyStoreFactory | undefined;
  let driver: RecordingDriver | undefined;
  let group: Group | undefined;
  ids.forEach((id, i) =>
    sim.addNode(
      `node${i}`,
      (env: Env) => {
        if (i !== 3) return Node.start({ env, key: keys[i]!, suite, version, groups: [genesis] });
        disk = new FaultyStoreFactory(env.storage, '/data');
        return Node.start({
          env: { ...env, storage: disk },
          key: keys[i]!,
          suite,
          version,
          groups: [genesis],
          consensusFactories: {
            pbft: (g) => {
              group = g;
              driver = new RecordingDriver(new PbftDriver(g), g);
              return driver;
            },
          },
        });
      },
      { nodeId: id },
    ),
  );
  const sent: Array<{ at: number; from: string; to: string }> = [];
  sim.network.observe({ sent: (from, to, _payload, timeMs) => sent.push({ at: timeMs, from, to }) });
  const client = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: 1n });
  const tx = Object.assign(() => client.build({ to: new Uint8Array(20).fill(1), blockLimit: 500n }).raw, {
    expired: () => client.build({ to: new Uint8Array(20).fill(1), blockLimit: 0n }).raw,
  });
  for (let t = 100, k = 0; t < 6_000; t += 100, k++) {
    sim.at(t, async () => {
      const target = sim.node(`node${k % 4}`).handle?.group(1);
      if (target) await target.submit(tx());
    });
  }
  const traceOf = (kind: string): TraceRecord[] => sim.trace.records.filter((r) => r.node === 'node3' && r.kind === kind);
  return {
    sim,
    ids,
    logs,
    sent,
    tx,
    traceOf,
    get disk() {
      return disk!;
    },
    get driver() {
      return driver!;
    },
    get group() {
      return group!;
    },
  };
}

const stranger = (k: number) => k.toString(16).padStart(4, '0').repeat(32);

/** A frame from a node in neither list: dropped at once, never queued. */
function fromStranger(group: Group, from: string, module: ModuleName): void {
  expect(group.onFrame(from, module, Uint8Array.of(1))).toBeUndefined();
}

describe('a group stopped by a storage failure', () => {
  it('runs none of the jobs queued behind the failing one, takes no later frame, and sends, logs and traces nothing more', async () => {
    const c = chain('group-stopped');
    const marker = (n: number) => Uint8Array.of(0xee, n);
    let calls = -1;
    c.sim.at(2_000, async () => {
      const { group, driver } = c;
      void c.disk.stores.get('group1')!.failNext({ when: (call) => call.operation === 'write' });
      driver.next = { write: Uint8Array.of(1, 2, 3) };
      const sealer = c.ids[0]!;
      // three jobs queued in one go: the first fails its write and stops the group; the two behind it must not run
      const jobs = [group.onFrame(sealer, 'pbft', marker(1)), group.onFrame(sealer, 'pbft', marker(2)), group.onFrame(sealer, 'sync', encodeSyncMessage({ type: 'transactions', transactions: [c.tx()] }))];
      for (const job of jobs) await job;
      calls = driver.calls.length;
      expect(driver.calls.filter((call) => call.startsWith('message pbft 0xee'))).toEqual(['message pbft 0xee01']);
    });
    c.sim.at(2_500, () => {
      const { group } = c;
      // frames from a member and from a stranger after the stop: neither taken nor logged
      expect(group.onFrame(c.ids[1]!, 'pbft', marker(3))).toBeUndefined();
      expect(group.onFrame(stranger(1), 'sync', marker(4))).toBeUndefined();
      // nothing goes on the wire, even when asked
      group.send(c.ids[0]!, 'pbft', marker(5));
      group.broadcast('sync', marker(6));
      // a second failure reported to the group changes nothing: the first is kept and logged once
      group.fail(new StorageFailure('/data/other', 'sync', new Error('EIO: second')));
    });
    await c.sim.run({ until: 8_000 });

    expect(calls).toBeGreaterThan(0);
    // the other nodes kept sending to node 3 all along; nothing of it reached its driver after the failure
    expect(c.driver.calls.length).toBe(calls);
    expect(c.sent.filter((m) => m.from === 'node3' && m.at > 2_000)).toEqual([]);
    const errors = c.logs[3]!.filter((l) => l.startsWith('error|'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(logLines.storageFailure(1, 'write', '/data/group1', 'write of /data/group1 failed: EIO: input/output error (injected fault)'));
    expect(c.logs[3]!.filter((l) => l.includes('[g:1]') && !l.startsWith('error|') && c.logs[3]!.indexOf(l) > c.logs[3]!.indexOf(errors[0]!))).toEqual([]);
    expect(c.traceOf('storage-failed').map((r) => r.fields)).toEqual([{ group: 1, operation: 'write', location: '/data/group1', error: 'write of /data/group1 failed: EIO: input/output error (injected fault)' }]);
    expect(c.traceOf('non-member-dropped')).toEqual([]);
    // the other three go on
    expect(c.sim.node('node0').handle!.group(1)!.blockNumber()).toBeGreaterThan(5);
  });
});

describe('a client submission meeting a failing disk', () => {
  it('is answered with the storage failure, not taken for a rejection, and the group stops', async () => {
    const c = chain('submit-read-failure');
    c.sim.at(1_000, async () => {
      void c.disk.stores.get('group1')!.failNext({ when: (call) => call.operation === 'read' });
      // a blockLimit already passed makes admission ask the ledger whether the transaction is on chain
      const expired = c.tx.expired();
      await expect(c.group.submit(expired)).rejects.toBeInstanceOf(StorageFailure);
    });
    await c.sim.run({ until: 1_500 });
    expect(c.traceOf('storage-failed').map((r) => r.fields['operation'])).toEqual(['read']);
  });
});

describe('errors out of the consensus driver', () => {
  it('rejects a frame whose driver threw anything but the storage failure that stopped the group', async () => {
    const c = chain('driver-errors');
    c.sim.at(1_000, async () => {
      const { group, driver } = c;
      driver.next = { throw: new Error('a bug in the driver') };
      await expect(group.onFrame(c.ids[0]!, 'pbft', Uint8Array.of(1))).rejects.toThrow('a bug in the driver');
      // a StorageFailure the store never reported (the group runs on): not swallowed either
      driver.next = { throw: new StorageFailure('/data/group1', 'read', new Error('EIO')) };
      await expect(group.onFrame(c.ids[0]!, 'pbft', Uint8Array.of(2))).rejects.toThrow('read of /data/group1 failed: EIO');
    });
    await c.sim.run({ until: 3_000 });
    expect(c.traceOf('storage-failed')).toEqual([]);
    expect(c.sim.node('node3').handle!.group(1)!.blockNumber()).toBeGreaterThan(0);
  });

  it('sends nothing to itself', async () => {
    const c = chain('self-send');
    let before = -1;
    c.sim.at(1_000, () => {
      before = c.sent.length;
      c.group.send(c.group.nodeId, 'pbft', Uint8Array.of(1));
      expect(c.sent.length).toBe(before);
      c.group.send(c.ids[0]!, 'pbft', Uint8Array.of(1));
      expect(c.sent.slice(before)).toEqual([{ at: expect.any(Number), from: 'node3', to: 'node0' }]);
    });
    await c.sim.run({ until: 1_001 });
    expect(before).toBeGreaterThanOrEqual(0);
  });
});

describe('messages from nodes in neither list', () => {
  it('are dropped with at most one warning a minute per node, naming the modules and the count since the last', async () => {
    const c = chain('strangers');
    const a = stranger(0xa);
    const warnings = () => c.logs[3]!.filter((l) => l.startsWith('warning|') && l.includes(a));
    const t0 = 500;
    c.sim.at(t0, () => fromStranger(c.group, a, 'pbft'));
    c.sim.at(t0 + 1_000, () => {
      fromStranger(c.group, a, 'sync');
      fromStranger(c.group, a, 'pbft');
    });
    c.sim.at(t0 + STRANGER_LOG_INTERVAL_MS - 1, () => fromStranger(c.group, a, 'sync'));
    // exactly a minute after the last warning: the next one
    c.sim.at(t0 + STRANGER_LOG_INTERVAL_MS, () => fromStranger(c.group, a, 'txpool'));
    await c.sim.run({ until: t0 + STRANGER_LOG_INTERVAL_MS + 1 });
    expect(warnings().map((l) => l.slice(l.indexOf('[g:1]')))).toEqual([logLines.nonMemberDropped(1, a, 'pbft', 1), logLines.nonMemberDropped(1, a, 'sync|pbft|txpool', 4)]);
    expect(c.traceOf('non-member-dropped').map((r) => r.fields)).toEqual([
      { group: 1, from: a, modules: 'pbft', dropped: 1 },
      { group: 1, from: a, modules: 'sync|pbft|txpool', dropped: 4 },
    ]);
  }, 30_000);

  it('are remembered for at most 256 nodes: a flood of new identities clears the table, and a node warned about before is warned about again', async () => {
    const c = chain('stranger-flood');
    const a = stranger(0xa);
    const warnings = () => c.logs[3]!.filter((l) => l.startsWith('warning|') && l.includes(a)).length;
    const counts: number[] = [];
    c.sim.at(500, () => {
      fromStranger(c.group, a, 'pbft');
      // 255 others: with a, 256 remembered; a is still within its minute
      for (let k = 1; k <= 255; k++) fromStranger(c.group, stranger(0x1000 + k), 'pbft');
      fromStranger(c.group, a, 'pbft');
      counts.push(warnings());
      // the 257th identity clears the table; a is new again
      fromStranger(c.group, stranger(0x2000), 'pbft');
      fromStranger(c.group, a, 'pbft');
      counts.push(warnings());
    });
    await c.sim.run({ until: 501 });
    expect(counts).toEqual([1, 2]);
    expect(c.traceOf('non-member-dropped')).toHaveLength(258);
  });
});
