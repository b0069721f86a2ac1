// The consensus drivers' smaller duties, each checked where it happens: which behaviours a driver
// takes on, what its adversary port hands the byzantine code, what stop() leaves behind, how a
// stored PBFT lock is read back, and what an observer does with consensus traffic. Honest swarm
// runs pass whether or not these hold; each would show only as a wrong trace, a timer left to fire
// in a stopped node, or a byzantine role that quietly acts honestly.
import { describe, expect, it, vi } from 'vitest';
import { fromHex, rlpEncode, rlpListOfEncoded, toHex } from '../codec/index.js';
import { encodeProposal, type PbftLock, type PbftOutput, type Proposal, type RaftOutput } from '../consensus/index.js';
import { decodeFrame, PBFT_LOCK_KEY, type Group, type PbftDriver, type RaftDriver } from '../node/index.js';
import { draftOf } from '../node/proposal-header.js';
import type { TimerHandle } from '../runtime/index.js';
import { lan, record } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

type Cluster = ReturnType<typeof cluster>;

/** The PBFT driver's private parts these tests reach for. */
interface PbftInside {
  adversaryPort(): {
    peers(): string[];
    alteredHash(hash: Uint8Array, field: 'stateRoot' | 'receiptsRoot'): Uint8Array | undefined;
  };
  apply(out: PbftOutput, now: number): Promise<void>;
  storeLock(lock: PbftLock | null): Promise<void>;
  loadLock(): Promise<PbftLock | undefined>;
  viewTimer?: TimerHandle;
  resendTimer?: TimerHandle;
  sealTimer?: TimerHandle;
}

interface RaftInside {
  raft: { canSeal(): { height: number } | undefined; propose(...args: unknown[]): unknown };
  trySeal(now: number): Promise<void>;
  commit(decision: unknown, now: number): Promise<void>;
  adversaryPort(): {
    send(to: number, bytes: Uint8Array): void;
    execute(proposal: Proposal): Promise<Uint8Array | undefined>;
  };
  apply(out: RaftOutput, now: number): Promise<void>;
  execute(height: number, proposal: Proposal, now: number): Promise<void>;
  timer?: { handle: TimerHandle };
  sealTimer?: { handle: TimerHandle };
}

const pbftOf = (c: Cluster, name: string) => c.group(name)!.consensus as PbftDriver;
const inside = <T>(driver: unknown) => driver as T;

/** A proposal for the group's next height on its head, sealed by `sealer` (default: the node itself). */
async function nextProposal(g: Group, transactions: readonly Uint8Array[] = [], sealer = g.sealers().indexOf(g.nodeId)): Promise<Proposal> {
  const head = await g.blockByNumber(g.chain.height);
  return {
    number: g.chain.height + 1,
    parentHash: g.chain.headHash,
    timestamp: head!.block.header.timestamp + 1,
    sealer,
    sealerList: g.sealers().map((id) => fromHex(id)),
    transactions,
  };
}

/** Runs `act` inside one simulated event at `at`, after the run so far; rethrows what it threw. */
async function during(c: Cluster, at: number, act: () => Promise<void> | void): Promise<void> {
  await c.sim.run({ until: at });
  let failure: unknown;
  c.sim.at(at, async () => {
    try {
      await act();
    } catch (e) {
      failure = e;
    }
  });
  await c.sim.run({ until: at + 1 });
  if (failure) throw failure;
}

describe('PBFT driver: the behaviours it takes on', () => {
  it('a block-sync behaviour is not the PBFT driver\'s: it stays honest; a conflicting proposal\'s peer list is traced by its length', async () => {
    const w = record([]);
    const c = cluster({ seed: 'duty-pbft-behaviour', network: lan, onNodeEvent: w.onNodeEvent });
    await during(c, 500, () => {
      const driver = pbftOf(c, 'node1');
      driver.setBehaviour({ kind: 'forge-sync', variant: 'bad-signature' });
      expect(driver.behaviour).toBeUndefined();
      driver.setBehaviour({ kind: 'equivocate', conflictPeers: [c.chain.idOf('node2'), c.chain.idOf('node3')] });
      expect(driver.behaviour?.kind).toBe('equivocate');
    });
    expect(w.of('byzantine-behaviour', ['node1']).map((e) => e.fields)).toEqual([{ group: 1, behaviour: 'honest' }, { group: 1, behaviour: 'equivocate', conflictPeers: 2 }]);
  });

  it('bad-block: its bad proposals are traced as bad-block\'s, and wait out min_block_generation_time after the last commit like honest ones', async () => {
    const w = record([]);
    const c = cluster({ seed: 'duty-pbft-bad-timing', network: lan, byzantine: { node3: { behaviour: 'bad-block', variant: 'wrong-chain-id', fromMs: 2_000 } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 15_000);
    await c.sim.run({ until: 15_000 });
    const bad = w.of('byzantine-action', ['node3'], 'bad-proposal');
    expect(bad.length).toBeGreaterThanOrEqual(2);
    const commits = w.of('block-committed', ['node3']);
    for (const b of bad) {
      expect(b.fields.behaviour).toBe('bad-block');
      const last = commits.filter((e) => e.atMs <= b.atMs).at(-1)!;
      // the commit's trace comes a little after the time the driver counts from (simulated execution time)
      expect(b.atMs - last.atMs, `bad proposal at ${b.atMs} ms`).toBeGreaterThanOrEqual(450);
    }
  });

  it('mutate: a rogue proposal ahead of the leader is drawn on each new round it does not lead, for that round', async () => {
    const w = record([]);
    const c = cluster({ seed: 'duty-pbft-rogue', network: lan, byzantine: { node1: { behaviour: 'mutate', mutations: ['rogue-proposal'], rate: 1 } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 8_000);
    await c.sim.run({ until: 8_000 });
    const ahead = w.of('byzantine-action', ['node1'], 'rogue-proposal').filter((e) => e.fields.ahead === true);
    expect(ahead.length).toBeGreaterThan(0);
    for (const e of ahead) expect(e.fields.leader).not.toBe(c.group('node1')!.sealers().indexOf(c.chain.idOf('node1')));
  });
  it('mutate: a round reached by a view change is a new round too: a rogue proposal ahead comes for it', async () => {
    const w = record([]);
    // 7 sealers (f = 2), two that lead one after the other down: a view changes from the first to the
    // second, which proposes nothing, and node1 has time to go ahead of it
    const c = cluster({ seed: 'duty-pbft-rogue-view', sealers: 7, network: lan, byzantine: { node1: { behaviour: 'mutate', mutations: ['rogue-proposal'], rate: 1 } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 12_000);
    c.sim.at(2_000, () => {
      const sealers = c.group('node0')!.sealers();
      const self = sealers.indexOf(c.chain.idOf('node1'));
      for (const k of [2, 3]) c.sim.crash(c.names.find((n) => c.chain.idOf(n) === sealers[(self + k) % 7])!);
    });
    await c.sim.run({ until: 12_000 });
    const commits = w.of('block-committed', ['node1']);
    const afterViewChange = w.of('byzantine-action', ['node1'], 'rogue-proposal').filter((e) => {
      if (e.fields.ahead !== true) return false;
      const last = commits.filter((b) => b.atMs <= e.atMs).at(-1);
      return last !== undefined && e.fields.height === Number(last.fields.number) + 1 && Number(e.fields.view) > Number(last.fields.view);
    });
    expect(afterViewChange.length).toBeGreaterThan(0);
  });

  it('mutate: with nothing in the pool there is no rogue proposal ahead of the leader (a draft needs transactions)', async () => {
    const w = record([]);
    const c = cluster({ seed: 'duty-pbft-rogue', network: lan, byzantine: { node1: { behaviour: 'mutate', mutations: ['rogue-proposal'], rate: 1 } }, onNodeEvent: w.onNodeEvent });
    await c.sim.run({ until: 8_000 });
    expect(w.of('pbft-view', ['node1']).length).toBeGreaterThan(0);
    expect(w.of('byzantine-action', ['node1'], 'rogue-proposal').filter((e) => e.fields.ahead === true)).toEqual([]);
  });

  it('refuses to commit a decided hash that is neither pending nor its locked block, even while it holds a lock', async () => {
    const c = cluster({ seed: 'duty-pbft-lock-other', network: lan });
    c.startHelloWorldLoad(5, 3_000);
    const attempt = during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<PbftInside & { pbft: { status(): { lock: PbftLock | undefined } } }>(g.consensus);
      const real = parts.pbft.status();
      const proposal = await nextProposal(g);
      parts.pbft.status = () => ({ ...real, lock: { height: proposal.number, view: 0, blockHash: new Uint8Array(32).fill(0x55), proposal } });
      await parts.apply({ broadcast: [], events: [], commit: { height: proposal.number, view: 0, blockHash: new Uint8Array(32).fill(0x77), signatures: [] } } as unknown as PbftOutput, 0);
    });
    await expect(attempt).rejects.toThrow(/commit of 0x7777\w*: the block is neither pending nor locked/);
  });
});

describe('PBFT driver: the adversary port', () => {
  it('peers: the connected sealers in sealer order, never an observer', async () => {
    const c = cluster({ seed: 'duty-pbft-peers', network: lan, observers: 1 });
    await during(c, 500, () => {
      const g = c.group('node2')!;
      const port = inside<PbftInside>(g.consensus).adversaryPort();
      expect(port.peers()).toEqual(g.sealers().filter((id) => id !== g.nodeId));
    });
  });

  it('alteredHash: only for this node\'s own pending block, with the named root flipped', async () => {
    const c = cluster({ seed: 'duty-pbft-altered', network: lan });
    await during(c, 200, async () => {
      const g = c.group('node0')!;
      const port = inside<PbftInside>(g.consensus).adversaryPort();
      const some = new Uint8Array(32).fill(7);
      expect(g.chain.executor.pending).toBeUndefined();
      expect(port.alteredHash(some, 'stateRoot')).toBeUndefined();
      const own = await g.chain.execute(draftOf(await nextProposal(g)), []);
      expect(port.alteredHash(some, 'stateRoot')).toBeUndefined();
      const altered = port.alteredHash(own.hash, 'stateRoot')!;
      expect(altered).toBeInstanceOf(Uint8Array);
      expect(toHex(altered)).not.toBe(toHex(own.hash));
      expect(toHex(port.alteredHash(own.hash, 'receiptsRoot')!)).not.toBe(toHex(altered));
      const self = g.sealers().indexOf(g.nodeId);
      const theirs = await g.chain.execute(draftOf(await nextProposal(g, [], (self + 1) % 4)), []);
      expect(port.alteredHash(theirs.hash, 'stateRoot')).toBeUndefined();
    });
  });
});

describe('PBFT driver: receiving', () => {
  it('a decode shared between receivers serves only one whose sealer list has the same node at the sender\'s index', async () => {
    const c = cluster({ seed: 'duty-pbft-shared-decode', network: lan });
    const frames: Uint8Array[] = [];
    c.sim.network.observe({
      delivered: (from, _to, payload) => {
        const frame = decodeFrame(payload);
        if (from === 'node2' && !('error' in frame) && frame.module === 'pbft') frames.push(frame.payload);
      },
    });
    c.startHelloWorldLoad(5, 3_000);
    await during(c, 2_000, () => {
      expect(frames.length).toBeGreaterThan(0);
      const payload = frames.at(-1)!;
      type Decoding = { decode(payload: Uint8Array, nodeIdOf: (idx: number) => Uint8Array | undefined): { idx: number } };
      const sealers = c.group('node0')!.sealers().map((id) => fromHex(id));
      const message = inside<Decoding>(c.group('node0')!.consensus).decode(payload, (i) => sealers[i]);
      expect(toHex(sealers[message.idx]!)).toBe(toHex(fromHex(c.chain.idOf('node2'))));
      // node1 with another node at that index: the shared result must not serve it, and its own decode refuses the signature
      const other = sealers.map((id, i) => (i === message.idx ? sealers[(i + 1) % sealers.length]! : id));
      expect(() => inside<Decoding>(c.group('node1')!.consensus).decode(payload, (i) => other[i])).toThrow();
    });
  });

  it('remembers at most 8192 messages it took (a re-sent one is dropped while remembered)', async () => {
    const c = cluster({ seed: 'duty-pbft-seen', network: lan });
    await during(c, 500, async () => {
      const g = c.group('node0')!;
      const parts = inside<{ seen: Set<string>; decode: () => unknown; pbft: { onMessage: () => PbftOutput } }>(g.consensus);
      parts.decode = () => ({ type: 'sign', idx: 1 });
      parts.pbft.onMessage = () => ({ broadcast: [], events: [] }) as unknown as PbftOutput;
      const size = g.options.signer.signatureSize;
      for (let i = 0; i < 8200; i++) {
        const payload = new Uint8Array(size + 4);
        new DataView(payload.buffer).setUint32(payload.length - size, i);
        await g.consensus.onMessage(c.chain.idOf('node1'), 'pbft', payload, 500);
      }
      expect(parts.seen.size).toBe(8192);
    });
  });
});

describe('PBFT driver: after stop()', () => {
  it('cancels its view, seal and resend timers, and acts on nothing more', async () => {
    const w = record([]);
    const c = cluster({ seed: 'duty-pbft-stop', network: lan, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 3_000);
    await during(c, 1_700, async () => {
      const g = c.group('node0')!;
      const parts = inside<PbftInside>(g.consensus);
      const armed = [parts.viewTimer, parts.sealTimer, parts.resendTimer].filter((t) => t !== undefined);
      expect(armed.length).toBeGreaterThanOrEqual(2);
      const cancel = vi.spyOn(g.env.clock, 'cancelTimer');
      g.consensus.stop();
      expect(cancel.mock.calls.map(([t]) => t)).toEqual(expect.arrayContaining(armed));
      const before = w.events.length;
      await parts.apply({ broadcast: [], events: [{ kind: 'pbft-view', fields: { to: 9 } }] } as unknown as PbftOutput, 0);
      expect(w.events.length).toBe(before);
    });
  });
  it('stops cleanly with a timer never armed (a sealer that has not led yet has no seal timer)', async () => {
    const c = cluster({ seed: 'duty-pbft-stop-early', network: lan });
    await during(c, 100, () => {
      const name = c.names.find((n) => inside<PbftInside>(c.group(n)!.consensus).sealTimer === undefined)!;
      expect(name).toBeDefined();
      expect(() => c.group(name)!.consensus.stop()).not.toThrow();
    });
  });
});

describe('PBFT driver: committing and sealing at its edges', () => {
  it('commits the decided block from its lock when the executor has moved on to another, never the other', async () => {
    const c = cluster({ seed: 'duty-pbft-commit-lock', network: lan });
    c.startHelloWorldLoad(5, 3_000);
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<PbftInside & { pbft: { status(): { lock: PbftLock | undefined } } }>(g.consensus);
      const decided = await nextProposal(g);
      const other = { ...decided, timestamp: decided.timestamp + 1 };
      const { hash } = await g.chain.execute(draftOf(decided), []);
      const { hash: otherHash } = await g.chain.execute(draftOf(other), []);
      expect(toHex(g.chain.executor.pending!.hash)).toBe(toHex(otherHash));
      const real = parts.pbft.status();
      parts.pbft.status = () => ({ ...real, lock: { height: decided.number, view: 0, blockHash: hash, proposal: decided } });
      await parts.apply({ broadcast: [], events: [], commit: { height: decided.number, view: 0, blockHash: hash, signatures: [] } } as unknown as PbftOutput, c.sim.now);
      expect(toHex(g.chain.headHash)).toBe(toHex(hash));
    });
  });

  it('seals nothing for a round whose height its head has passed, and no empty block while transactions wait', async () => {
    const c = cluster({ seed: 'duty-pbft-seal-edges', network: lan });
    c.startHelloWorldLoad(20, 3_000);
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<{ sealing?: { height: number; view: number; since: number }; lastCommitAt: number; trySeal(now: number): Promise<void>; pbft: { viewState(): { view: number; leaderFailed: boolean }; propose: () => PbftOutput; emptyBlock: () => PbftOutput } }>(g.consensus);
      let proposed = 0;
      const none = () => {
        proposed++;
        return { broadcast: [], events: [] } as unknown as PbftOutput;
      };
      parts.pbft.propose = none;
      parts.pbft.emptyBlock = none;
      const { view } = parts.pbft.viewState();
      parts.pbft.viewState = () => ({ view, leaderFailed: false });
      const now = c.sim.now;
      // a round for the height the head already has
      parts.sealing = { height: g.chain.height, view, since: now - 10_000 };
      await parts.trySeal(now + 10_000);
      expect(proposed).toBe(0);
      expect(parts.sealing).toBeUndefined();
      // the round waited past the empty-block timeout, the last commit was just now, transactions wait: not an empty block
      expect(g.pool.size).toBeGreaterThan(0);
      parts.sealing = { height: g.chain.height + 1, view, since: now - 60_000 };
      parts.lastCommitAt = now - 100;
      await parts.trySeal(now);
      expect(proposed).toBe(0);
      expect(parts.sealing).toBeDefined();
    });
  });

  it('consensus traffic goes to sealers only: an observer gets no PBFT message', async () => {
    const c = cluster({ seed: 'duty-pbft-observer', network: lan, observers: 1 });
    const toObserver: string[] = [];
    c.sim.network.observe({
      sent: (_from, to, payload) => {
        const frame = decodeFrame(payload);
        if (to === 'node4' && !('error' in frame) && frame.module === 'pbft') toObserver.push(to);
      },
    });
    c.startHelloWorldLoad(5, 3_000);
    await c.sim.run({ until: 3_000 });
    expect(c.group('node0')!.blockNumber()).toBeGreaterThan(2);
    expect(toObserver).toEqual([]);
  });

  it('after stop() it schedules no more resends', async () => {
    const c = cluster({ seed: 'duty-pbft-resend-stop', network: lan });
    await during(c, 500, () => {
      const g = c.group('node0')!;
      g.consensus.stop();
      const timer = vi.spyOn(g.env.clock, 'setTimer');
      inside<{ scheduleResend(): void }>(g.consensus).scheduleResend();
      expect(timer).not.toHaveBeenCalled();
    });
  });
});

describe('PBFT driver: the lock on disk, read back', () => {
  it('a lock for a height already committed is not taken up; one for the next height is', async () => {
    const c = cluster({ seed: 'duty-pbft-lock-stale', network: lan });
    c.startHelloWorldLoad(10, 3_000);
    await during(c, 3_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<PbftInside>(g.consensus);
      const proposal = await nextProposal(g);
      const lock = (height: number): PbftLock => ({ height, view: 3, blockHash: new Uint8Array(32).fill(5), proposal });
      expect(g.chain.height).toBeGreaterThan(1);
      await parts.storeLock(lock(g.chain.height));
      expect(await parts.loadLock()).toBeUndefined();
      await parts.storeLock(lock(g.chain.height + 1));
      expect(await parts.loadLock()).toMatchObject({ height: g.chain.height + 1, view: 3 });
    });
  });

  it('a lock whose height or view is no canonical integer fails the read, naming the field', async () => {
    const c = cluster({ seed: 'duty-pbft-lock-bad', network: lan });
    await during(c, 300, async () => {
      const g = c.group('node0')!;
      const parts = inside<PbftInside>(g.consensus);
      const proposal = await nextProposal(g);
      const padded = rlpEncode(Uint8Array.of(0, 1));
      const one = rlpEncode(Uint8Array.of(1));
      const tail = [rlpEncode(new Uint8Array(32)), encodeProposal(proposal)];
      await g.store.put(PBFT_LOCK_KEY, rlpListOfEncoded([padded, one, ...tail]));
      await expect(parts.loadLock()).rejects.toThrow(/height/);
      await g.store.put(PBFT_LOCK_KEY, rlpListOfEncoded([one, padded, ...tail]));
      await expect(parts.loadLock()).rejects.toThrow(/view/);
    });
  });
});

describe('PBFT driver: getConsensusStatus', () => {
  it('the prepare caches of the round in progress name the next height', async () => {
    const c = cluster({ seed: 'duty-pbft-cache-height', network: lan });
    c.startHelloWorldLoad(10, 3_000);
    let seen = 0;
    c.sim.afterEvent((event) => {
      if (event.node !== 'node1') return;
      const g = c.group('node1')!;
      const s = g.consensusStatus();
      if (s.kind !== 'pbft') return;
      for (const cache of [s.prepareCache, s.rawPrepareCache]) {
        if (cache.height < 0) continue;
        seen++;
        expect(cache.height).toBe(g.blockNumber() + 1);
      }
    });
    await c.sim.run({ until: 3_000 });
    expect(seen).toBeGreaterThan(10);
  });
});

describe('Raft driver', () => {
  async function raft(seed: string, onNodeEvent?: ReturnType<typeof record>['onNodeEvent']) {
    const c = cluster({ seed, consensus: 'raft', sealers: 3, observers: 1, network: lan, ...(onNodeEvent ? { onNodeEvent } : {}) });
    c.startHelloWorldLoad(5, 3_000);
    return c;
  }

  it('a PBFT behaviour is not the Raft driver\'s: nothing changes and nothing is traced', async () => {
    const w = record([]);
    const c = await raft('duty-raft-behaviour', w.onNodeEvent);
    await during(c, 1_000, () => (c.group('node1')!.consensus as RaftDriver).setBehaviour({ kind: 'equivocate' }));
    expect(w.of('byzantine-behaviour', ['node1'])).toEqual([]);
  });

  it('the adversary port sends to a sealer by index, and to no one past the list', async () => {
    const c = await raft('duty-raft-port-send');
    const sent: Array<{ to: string; module: string }> = [];
    c.sim.network.observe({
      sent: (from, to, payload) => {
        const frame = decodeFrame(payload);
        if (from === 'node0' && !('error' in frame) && frame.module === 'raft') sent.push({ to, module: frame.module });
      },
    });
    await during(c, 2_000, () => {
      const port = inside<RaftInside>(c.group('node0')!.consensus).adversaryPort();
      sent.length = 0;
      port.send(9, Uint8Array.of(0xc0));
      expect(sent).toEqual([]);
      port.send(2, Uint8Array.of(0xc0));
      expect(sent).toEqual([{ to: c.names.find((n) => c.chain.idOf(n) === c.group('node0')!.sealers()[2])!, module: 'raft' }]);
    });
  });

  it('the adversary port executes a proposal only at the next height and only when its transactions validate', async () => {
    const c = await raft('duty-raft-port-execute');
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const port = inside<RaftInside>(g.consensus).adversaryPort();
      const good = await nextProposal(g);
      expect(await port.execute({ ...good, number: good.number + 1 })).toBeUndefined();
      expect(await port.execute({ ...good, transactions: [Uint8Array.of(1, 2, 3)] })).toBeUndefined();
      const hash = await port.execute(good);
      expect(hash && toHex(hash)).toBe(toHex(g.chain.executor.pending!.hash));
    });
  });

  it('a proposal whose transactions do not validate is refused with the reason', async () => {
    const w = record([]);
    const c = await raft('duty-raft-bad-txs', w.onNodeEvent);
    let height = 0;
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const p = await nextProposal(g, [Uint8Array.of(1, 2, 3)]);
      height = p.number;
      await inside<RaftInside>(g.consensus).execute(p.number, p, 0);
    });
    const refused = w.of('raft-proposal-rejected', ['node0']).filter((e) => e.fields.height === height);
    expect(refused.map((e) => String(e.fields.reason))).toEqual([expect.stringMatching(/^transaction 0: /)]);
  });

  it('consensus traffic goes to sealers only, and an observer ignores a Raft message sent to it', async () => {
    const w = record([]);
    const c = await raft('duty-raft-observer', w.onNodeEvent);
    const toObserver: string[] = [];
    c.sim.network.observe({
      sent: (_from, to, payload) => {
        const frame = decodeFrame(payload);
        if (to === 'node3' && !('error' in frame) && frame.module === 'raft') toObserver.push(toHex(frame.payload));
      },
    });
    await c.sim.run({ until: 2_000 });
    expect(toObserver).toEqual([]);
    expect(c.group('node3')!.membership()).toBe('observer');
    // a leader's heartbeat, sent to the observer by hand
    const heartbeats: Uint8Array[] = [];
    c.sim.network.observe({
      sent: (_from, to, payload) => {
        const frame = decodeFrame(payload);
        if (to !== 'node3' && !('error' in frame) && frame.module === 'raft') heartbeats.push(frame.payload);
      },
    });
    await c.sim.run({ until: 3_000 });
    expect(heartbeats.length).toBeGreaterThan(0);
    const observer = c.group('node3')!.consensus as RaftDriver;
    const termBefore = observer.inspect().term;
    const before = w.events.filter((e) => e.node === 'node3').length;
    await during(c, 3_000, async () => {
      for (const bytes of heartbeats.slice(-5)) await observer.onMessage(c.group('node0')!.nodeId, 'raft', bytes, c.sim.now);
    });
    expect(observer.inspect().term).toBe(termBefore);
    expect(w.events.filter((e) => e.node === 'node3' && e.kind.startsWith('raft-')).length).toBe(0);
    expect(w.events.filter((e) => e.node === 'node3').length).toBe(before);
  });

  it('after stop(): its election and seal timers are cancelled, a proposal is no longer executed and output is not acted on', async () => {
    const w = record([]);
    const c = await raft('duty-raft-stop', w.onNodeEvent);
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<RaftInside>(g.consensus);
      const armed = [parts.timer?.handle, parts.sealTimer?.handle].filter((t) => t !== undefined);
      expect(armed.length).toBeGreaterThanOrEqual(1);
      const cancel = vi.spyOn(g.env.clock, 'cancelTimer');
      g.consensus.stop();
      expect(cancel.mock.calls.map(([t]) => t)).toEqual(expect.arrayContaining(armed));
      const pending = g.chain.executor.pending;
      const p = await nextProposal(g);
      await parts.execute(p.number, p, 0);
      expect(g.chain.executor.pending).toBe(pending);
      const before = w.events.length;
      await parts.apply({ send: [], events: [{ kind: 'raft-role', fields: { role: 'leader' } }] } as unknown as RaftOutput, 0);
      expect(w.events.length).toBe(before);
    });
  });
});

describe('Raft driver: sealing and committing at its edges', () => {
  async function raft(seed: string) {
    const c = cluster({ seed, consensus: 'raft', sealers: 3, network: lan });
    c.startHelloWorldLoad(5, 3_000);
    await c.sim.run({ until: 2_000 });
    return c;
  }

  /** What one sealing attempt of node0 does when its state machine offers `height` (after stop(), if `stopped`). */
  async function sealAttempt(c: Cluster, height: (g: Group) => number, stopped: boolean) {
    const seen = { logs: 0, timers: 0, proposals: 0 };
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<RaftInside>(g.consensus);
      parts.raft.canSeal = () => ({ height: height(g) });
      parts.raft.propose = () => {
        seen.proposals++;
        return { send: [], events: [] };
      };
      parts.sealTimer = undefined;
      if (stopped) g.consensus.stop();
      const log = vi.spyOn(g, 'log');
      const timer = vi.spyOn(g.env.clock, 'setTimer');
      await parts.trySeal(c.sim.now + 10_000);
      seen.logs = log.mock.calls.length;
      seen.timers = timer.mock.calls.length;
    });
    return seen;
  }

  it('seals only for the height after its head, and not at all once stopped', async () => {
    expect(await sealAttempt(await raft('duty-raft-seal-next'), (g) => g.chain.height + 1, false)).not.toEqual({ logs: 0, timers: 0, proposals: 0 });
    expect(await sealAttempt(await raft('duty-raft-seal-ahead'), (g) => g.chain.height + 5, false)).toEqual({ logs: 0, timers: 0, proposals: 0 });
    expect(await sealAttempt(await raft('duty-raft-seal-stopped'), (g) => g.chain.height + 1, true)).toEqual({ logs: 0, timers: 0, proposals: 0 });
  });

  it('a leader\'s certificate: signatures past the sealer list and repeats are dropped, the valid ones kept in index order', async () => {
    const c = await raft('duty-raft-certificate');
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<RaftInside>(g.consensus);
      const proposal = await nextProposal(g);
      const { hash } = await g.chain.execute(draftOf(proposal), []);
      const byIndex = (i: number) => c.group(c.names.find((n) => c.chain.idOf(n) === g.sealers()[i])!)!.options.signer.sign(hash);
      const height = g.chain.height;
      const signatures = [
        { index: 2, signature: byIndex(2) },
        { index: 9, signature: byIndex(2) },
        { index: 0, signature: byIndex(0) },
        { index: 2, signature: byIndex(2) },
      ];
      await parts.commit({ height: height + 1, blockHash: hash, signatures, proposal, by: 'certificate' }, c.sim.now);
      expect(g.chain.height).toBe(height + 1);
      const stored = await g.blockByNumber(height + 1);
      expect(stored!.block.signatureList.map((s) => s.index)).toEqual([0, 2]);
    });
  });

  it('after stop() a decided block is not committed', async () => {
    const c = await raft('duty-raft-commit-stopped');
    await during(c, 2_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<RaftInside>(g.consensus);
      const proposal = await nextProposal(g);
      const { hash } = await g.chain.execute(draftOf(proposal), []);
      const height = g.chain.height;
      g.consensus.stop();
      await parts.commit({ height: height + 1, blockHash: hash, signatures: [], proposal, by: 'leader' }, c.sim.now);
      expect(g.chain.height).toBe(height);
    });
  });
});

describe('Group: after stop()', () => {
  it('schedules no more gossip or sync ticks, and one already due does nothing', async () => {
    const c = cluster({ seed: 'duty-group-stop', network: lan });
    c.startHelloWorldLoad(5, 3_000);
    await during(c, 1_000, async () => {
      const g = c.group('node0')!;
      const parts = inside<{ scheduleRegossip(): void; scheduleSyncTick(): void }>(g);
      // the two timers' callbacks, as they would fire just after the stop
      const due: Array<() => void | Promise<void>> = [];
      const capture = vi.spyOn(g.env.clock, 'setTimer').mockImplementation((_ms: number, callback: () => void | Promise<void>) => {
        due.push(callback);
        return {} as TimerHandle;
      });
      parts.scheduleRegossip();
      parts.scheduleSyncTick();
      capture.mockRestore();
      expect(due).toHaveLength(2);
      g.stop();
      const timer = vi.spyOn(g.env.clock, 'setTimer');
      const stale = vi.spyOn(g.pool, 'staleForGossip');
      const tick = vi.spyOn(g.syncing, 'tick');
      parts.scheduleRegossip();
      parts.scheduleSyncTick();
      for (const callback of due) await callback();
      await g.queue.run(() => undefined);
      expect([timer.mock.calls.length, stale.mock.calls.length, tick.mock.calls.length]).toEqual([0, 0, 0]);
    });
  });
});

describe('Group', () => {
  it('lists its observers, and its node id list is itself and then every connected peer', async () => {
    const c = cluster({ seed: 'duty-group-lists', network: lan, observers: 1 });
    await c.sim.run({ until: 1_000 });
    const g = c.group('node0')!;
    expect(g.observers()).toEqual([c.chain.idOf('node4')]);
    expect(g.nodeIdList()[0]).toBe(g.nodeId);
    expect(new Set(g.nodeIdList().slice(1))).toEqual(new Set(['node1', 'node2', 'node3', 'node4'].map((n) => c.chain.idOf(n))));
  });
});
