import { describe, expect, it } from 'vitest';
import { kindFits } from '../../node/index.js';
import { honestNodes } from './scenario-chain.js';
import { durationMs, parseScenario } from './scenario-loader.js';
import { drawSwarm } from './swarm.js';

const scenario = (nodes: number, consensus: 'pbft' | 'raft', extra = '') =>
  parseScenario(`
name: swarm-adv
duration: 60s
chain: { nodes: ${nodes} }
groups: [{ id: 1, consensus: ${consensus}, sealers: ${nodes} }]
swarm: { crashes: [1, 2], pauses: [0, 1], partitions: [0, 2], adversaries: [1, 1], window: [5s, 40s], faultDuration: [1s, 5s] }
${extra}`);

/** [from, to] of every node fault of a drawn timeline (crash…restart, pause…resume, partition…heal). */
function nodeFaults(timeline: ReturnType<typeof drawSwarm>['scenario']['timeline']): Array<[number, number]> {
  const open = new Map<string, number>();
  const out: Array<[number, number]> = [];
  for (const e of [...timeline].sort((a, b) => durationMs(a.at) - durationMs(b.at))) {
    const t = durationMs(e.at);
    if (e.crash || e.pause) open.set('node', t);
    if (e.partition) open.set('split', t);
    for (const [key, ends] of [['node', Boolean(e.restart || e.resume)], ['split', Boolean(e.heal)]] as const) {
      if (!ends || !open.has(key)) continue;
      out.push([open.get(key)!, t]);
      open.delete(key);
    }
  }
  return out;
}

describe('swarm adversary draws', () => {
  it.each(['pbft', 'raft'] as const)('%s: one byzantine window per seed inside the swarm window, a behaviour that fits, clear of every node fault', (consensus) => {
    const kinds = new Set<string>();
    let forged = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { scenario: s, drawn } = drawSwarm(scenario(consensus === 'pbft' ? 4 : 5, consensus), seed);
      expect(s.byzantine).toHaveLength(1);
      const b = s.byzantine[0]!;
      if (!('node' in b)) throw new Error('not a byzantine entry');
      kinds.add(b.behaviour);
      expect(kindFits(b.behaviour, consensus)).toBe(true);
      if (consensus === 'raft') expect(b.behaviour).not.toBe('double-vote');
      const [from, until] = [durationMs(b.from!), durationMs(b.until!)];
      expect(from).toBeGreaterThanOrEqual(5_000);
      expect(from).toBeLessThanOrEqual(40_000);
      expect(until - from).toBeGreaterThanOrEqual(1_000);
      const victim = s.timeline.filter((e) => e.label?.startsWith('swarm sync victim'));
      for (const [a, z] of nodeFaults(s.timeline.filter((e) => !victim.includes(e)))) expect(z <= from || a >= until, `seed ${seed}: ${a}-${z} overlaps ${from}-${until}`).toBe(true);
      if (b.behaviour === 'forge-sync') {
        // another member falls behind before the forger starts and comes back while it serves
        forged++;
        const [crash, restart] = victim;
        expect(crash?.crash).toBeDefined();
        expect(crash!.crash).not.toBe(b.node);
        expect(restart?.restart).toBe(crash!.crash);
        expect(durationMs(crash!.at)).toBeLessThanOrEqual(from - 2000);
        expect(durationMs(restart!.at)).toBeGreaterThan(from);
        expect(durationMs(restart!.at)).toBeLessThan(until);
      } else expect(victim).toEqual([]);
      expect(honestNodes(s)).not.toContain(b.node);
      expect(drawn.some((d) => d.startsWith(`byzantine ${b.node} ${b.behaviour}`))).toBe(true);
      // same seed, same draw
      expect(drawSwarm(scenario(consensus === 'pbft' ? 4 : 5, consensus), seed).scenario.byzantine).toEqual(s.byzantine);
    }
    expect(kinds.size).toBeGreaterThan(1);
    expect(forged).toBeGreaterThan(0);
  });

  it('no adversary when the file already uses the fault budget, and the other draws of a seed stay as they were without the key', () => {
    const full = drawSwarm(scenario(4, 'pbft', 'byzantine: [{ node: node3, behaviour: silent }]'), 3);
    expect(full.scenario.byzantine).toHaveLength(1);
    expect(full.drawn.some((d) => d.startsWith('adversary: skipped, no fault budget'))).toBe(true);
    const plain = parseScenario(`
name: swarm-adv
duration: 60s
chain: { nodes: 4 }
groups: [{ id: 1, consensus: pbft, sealers: 4 }]
swarm: { loss: [0, 0.1], latencyMs: [5, 50] }
`);
    const withKey = { ...plain, swarm: { ...plain.swarm, adversaries: [0, 0] as [number, number] } };
    expect(drawSwarm(withKey, 7).drawn).toEqual(drawSwarm(plain, 7).drawn);
  });

  it('a scenario names a bad variant or none where one is needed: a clear error', () => {
    const base = `
name: adv
duration: 10s
chain: { nodes: 4 }
`;
    expect(() => parseScenario(`${base}byzantine: [{ node: node3, behaviour: bad-block }]`)).toThrow(/bad-block needs a variant: one of bad-signature/);
    expect(() => parseScenario(`${base}byzantine: [{ node: node3, behaviour: forge-sync, variant: nope }]`)).toThrow(/variant of forge-sync must be one of too-few-signatures/);
    expect(() => parseScenario(`${base}byzantine: [{ node: node3, behaviour: silent, variant: bad-signature }]`)).toThrow(/silent takes no variant/);
    expect(parseScenario(`${base}byzantine: [{ node: node3, behaviour: bad-block, variant: on-chain, from: 2s, until: 5s }]`).byzantine).toHaveLength(1);
  });
});
