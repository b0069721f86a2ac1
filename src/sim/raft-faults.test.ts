import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { lan, leaderOf, raftCluster, raftOf } from './raft-cluster.test-helper.js';

describe('Raft under faults (simulated)', () => {
  it('leader crash → a new leader within max_elect_time plus a heartbeat; commits resume; the old leader catches up after a restart', async () => {
    const { c, monitor } = raftCluster({ seed: 'raft-leader-crash' });
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 8_000 });
    const old = leaderOf(c)!;
    const oldTerm = raftOf(c, old)!.term;
    const heightAtCrash = Math.max(...c.heights());
    const crashAt = c.sim.now;
    c.sim.crash(old);
    let electedAt: number | undefined;
    const stop = c.sim.afterEvent(() => {
      const now = leaderOf(c);
      if (electedAt === undefined && now && now !== old && raftOf(c, now)!.term > oldTerm) electedAt = c.sim.now;
    });
    await c.sim.run({ until: crashAt + 6_000 });
    stop();
    expect(electedAt, 'a new leader').toBeDefined();
    expect(electedAt! - crashAt).toBeLessThanOrEqual(2000 + 250);
    const resumed = c.commits.find((e) => e.at > crashAt && e.height > heightAtCrash + 1);
    expect(resumed, 'blocks after the crash').toBeDefined();
    c.sim.restart(old);
    await c.sim.run({ until: 36_000 });
    const heights = c.heights();
    expect(new Set(heights).size).toBe(1);
    expect(heights[0]).toBeGreaterThan(heightAtCrash + 10);
    await c.checkAgreement();
    expect(monitor.leaders.size).toBe(2);
  });

  it('a minority partition cannot commit, the majority can; after healing all converge and the minority leader\'s uncommitted block is dropped', async () => {
    const { c, monitor } = raftCluster({ seed: 'raft-minority', sealers: 5 });
    c.startHelloWorldLoad(10, 30_000);
    await c.sim.run({ until: 6_000 });
    const old = leaderOf(c)!;
    const minority = [old, c.names.find((n) => n !== old)!];
    const majority = c.names.filter((n) => !minority.includes(n));
    const split = c.sim.network.partition([minority, majority]);
    const across = () => c.sim.network.linkStats(minority[0]!, majority[0]!).delivered + c.sim.network.linkStats(majority[1]!, minority[1]!).delivered;
    const crossedBefore = across();
    const frozen = Math.max(...minority.map((n) => c.group(n)!.blockNumber()));
    await c.sim.run({ until: 16_000 });
    // the old leader sealed what its pool held, but nobody on its side can make a majority
    expect(Math.max(...minority.map((n) => c.group(n)!.blockNumber()))).toBe(frozen);
    const stranded = raftOf(c, old)!.pending;
    expect(stranded?.height).toBe(frozen + 1);
    expect(raftOf(c, old)!.role).not.toBe('leader'); // it stepped down: no majority answers its heartbeats
    expect(Math.min(...majority.map((n) => c.group(n)!.blockNumber()))).toBeGreaterThan(frozen + 5);
    expect(across()).toBe(crossedBefore); // the partition held
    c.sim.network.heal(split);
    await c.sim.run({ until: 36_000 });
    const heights = c.heights();
    expect(new Set(heights).size).toBe(1);
    await c.checkAgreement();
    expect(raftOf(c, old)!.pending?.blockHash).not.toEqual(stranded!.blockHash);
    const blockAtStranded = await c.group(old)!.blockByNumber(stranded!.height);
    expect(toHex(blockAtStranded!.hash)).not.toBe(toHex(stranded!.blockHash)); // the majority's block won
    expect(monitor.leaders.size).toBeGreaterThanOrEqual(2);
  });

  it.each(['alpha', 'beta', 'gamma'])('seed %s: random crashes, restarts and partitions within the fault budget; safety on every event, convergence after healing', async (seed) => {
    const rng = seedrandom(`raft-chaos-${seed}`);
    const n = 4 + Math.floor(rng() * 2);
    const f = Math.floor((n - 1) / 2);
    const { c, monitor } = raftCluster({ seed: `raft-chaos-${seed}`, sealers: n, network: { ...lan, lossRate: 0.02 } });
    c.startHelloWorldLoad(8, 40_000);
    const down = new Set<string>();
    for (let t = 3_000; t < 30_000; t += 1_000 + Math.floor(rng() * 2_500)) {
      c.sim.at(t, () => {
        const r = rng();
        const up = c.names.filter((x) => !down.has(x));
        if (r < 0.35 && down.size < f) {
          const victim = up[Math.floor(rng() * up.length)]!;
          down.add(victim);
          c.sim.crash(victim);
        } else if (r < 0.6 && down.size > 0) {
          const back = [...down][Math.floor(rng() * down.size)]!;
          down.delete(back);
          c.sim.restart(back);
        } else if (r < 0.85) {
          c.sim.network.heal();
          const side = c.names.filter(() => rng() < 0.5);
          if (side.length > 0 && side.length < n) c.sim.network.partition([side, c.names.filter((x) => !side.includes(x))]);
        } else c.sim.network.heal();
      });
    }
    c.sim.at(30_000, () => {
      c.sim.network.heal();
      for (const x of down) c.sim.restart(x);
      down.clear();
    });
    await c.sim.run({ until: 30_000 });
    const healedAt = Math.max(...c.heights());
    await c.sim.run({ until: 48_000 });
    const heights = c.heights();
    expect(Math.min(...heights)).toBeGreaterThan(healedAt);
    expect(new Set(heights).size).toBe(1);
    await c.checkAgreement();
    expect(monitor.checks).toBe(c.sim.eventCount);
  });

  it('transactions submitted to a follower cut off from the leader commit after the heal: pools re-gossip what stays pending', async () => {
    const { c } = raftCluster({ seed: 'raft-regossip', sealers: 5, network: lan });
    c.startHelloWorldLoad(10, 30_000);
    let isolated = '';
    c.sim.at(10_000, () => {
      const leader = leaderOf(c)!;
      isolated = c.names.find((n) => n !== leader)!;
      const split = c.sim.network.partition([[isolated], c.names.filter((n) => n !== isolated)]);
      c.sim.at(15_000, () => c.sim.network.heal(split));
    });
    await c.sim.run({ until: 15_000 });
    const stranded = c.group(isolated)!.pool.size;
    expect(stranded).toBeGreaterThan(0); // the load kept submitting to it while it was cut off
    await c.sim.run({ until: 45_000 });
    for (const n of c.names) {
      expect(await c.missing(n)).toEqual([]);
      expect(c.group(n)!.pool.size).toBe(0);
    }
    expect(new Set(c.heights()).size).toBe(1);
  });

  it('the same seed twice gives the identical trace digest', async () => {
    const run = async () => {
      const { c } = raftCluster({ seed: 'raft-determinism', network: { ...lan, lossRate: 0.02 } });
      c.startHelloWorldLoad(10, 8_000);
      c.sim.at(3_000, () => c.sim.crash(leaderOf(c)!));
      c.sim.at(6_000, () => c.sim.restart(c.names.find((n) => c.sim.node(n).state === 'down')!));
      return c.sim.run({ until: 10_000 });
    };
    const a = await run();
    const b = await run();
    expect(a.digest).toBe(b.digest);
    expect(a.events).toBe(b.events);
  });
});
