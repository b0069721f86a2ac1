import { describe, expect, it } from 'vitest';
import { durationMs, loadScenario, parseScenario } from '../scenario/scenario-loader.js';
import { runScenario } from '../scenario/scenario-runner.js';
import type { Scenario } from '../scenario/scenario-schema.js';
import { candidateOutcome, errorOutcome, type CandidateJob, type CandidateOutcome, type CandidateViolation } from './candidate.js';
import { CandidatePool, type CandidateRunner } from './candidate-pool.js';
import { reproduces, Shrinker, targetOf } from './shrinker.js';

const FILE = 'test.yaml';

/** Runs candidates in this thread. */
function local(run: (job: CandidateJob, cancelled: () => boolean) => Promise<CandidateOutcome | undefined>): CandidateRunner {
  let cancelled = false;
  return {
    run: (job) => {
      cancelled = false;
      return run(job, () => cancelled);
    },
    cancel: () => {
      cancelled = true;
    },
    close: async () => undefined,
  };
}

const labels = (s: Scenario) => s.timeline.flatMap((e) => (e.label === undefined ? [] : [e.label]));

/**
 * A scenario of 50 faults, all harmless on their own: crash/restart pairs that never overlap,
 * pauses, message faults, clogs and link changes, and among them two crashes of different sealers
 * (`first` and `second`) that overlap in time, the only moment two sealers are down at once.
 */
function fiftyFaults(): string {
  const lines: string[] = [];
  let units = 0;
  const add = (...entries: string[]) => {
    lines.push(...entries);
    units++;
  };
  add('  - { at: 10s, crash: node1, label: first }', '  - { at: 11s, restart: node1, label: first }');
  add('  - { at: 10.5s, crash: node2, label: second }', '  - { at: 11.5s, restart: node2, label: second }');
  // single crashes (never two at once) before and after the pair
  for (let i = 0; i < 12; i++) {
    const t = i < 6 ? 0.5 + i * 1.5 : 12.5 + (i - 6) * 1.2;
    add(`  - { at: ${t}s, crash: node${i % 4}, label: noise }`, `  - { at: ${(t + 0.4).toFixed(1)}s, restart: node${i % 4}, label: noise }`);
  }
  const kinds = ['pbft.prepare', 'pbft.sign', 'pbft.commit', 'pbft.viewchange', 'sync.status'];
  for (let i = 0; i < 12; i++) add(`  - { at: ${(0.3 + i * 1.5).toFixed(1)}s, messages: { kinds: [${kinds[i % kinds.length]}], to: [node${i % 4}], delay: 200ms, for: 1s }, label: noise }`);
  for (let i = 0; i < 12; i++) add(`  - { at: ${(0.7 + i * 1.5).toFixed(1)}s, clog: { between: [node${i % 4}, node${(i + 1) % 4}], for: 300ms }, label: noise }`);
  for (let i = 0; i < 12; i++) {
    add(`  - { at: ${(0.2 + i * 1.5).toFixed(1)}s, link: { from: node${i % 4}, to: node${(i + 2) % 4}, latency: { kind: constant, ms: 30 } }, label: noise }`, `  - { at: ${(1.2 + i * 1.5).toFixed(1)}s, link: { from: node${i % 4}, to: node${(i + 2) % 4}, reset: true }, label: noise }`);
  }
  expect(units).toBe(50);
  return `name: fifty
duration: 20s
chain: { nodes: 4, consensusSignatures: simulated }
expect: { liveness: false }
timeline:
${lines.join('\n')}
`;
}

/**
 * A planted check (test-only): "never two sealers down at the same time", read from the
 * simulation's node states after every event. Nothing in the scenario language says which two
 * faults matter; the shrinker has to find them.
 */
function twoDownRunner(): CandidateRunner {
  return local(async (job, cancelled) => {
    const extra: CandidateViolation[] = [];
    try {
      const scenario = await loadScenario(job.yaml, FILE);
      const result = await runScenario(scenario, {
        file: FILE,
        onChain: (chain) =>
          chain.sim.afterEvent(() => {
            const down = chain.names.filter((n) => chain.sim.node(n).state === 'down');
            if (down.length >= 2 && extra.length === 0) extra.push({ invariant: 'two-sealers-down', atMs: chain.sim.now, node: down.join(','), height: 0, detail: `${down.join(' and ')} are down at once` });
          }),
        stopWhen: () => cancelled() || (job.stopOn === 'two-sealers-down' && extra.length > 0),
      });
      return cancelled() ? undefined : candidateOutcome(result, job, extra);
    } catch (e) {
      return errorOutcome(e);
    }
  });
}

describe('shrink', () => {
  it('keeps exactly the two faults (of 50) that together cause the violation, and checks it is 1-minimal', async () => {
    const scenario = parseScenario(fiftyFaults(), FILE);
    const pool = new CandidatePool([twoDownRunner()]);
    const result = await new Shrinker({ scenario, file: FILE, pool }).run();
    expect(result.target).toEqual({ kind: 'invariant', name: 'two-sealers-down' });
    expect(result.original.events).toBe(50);
    expect(result.shrunk.events).toBe(2);
    expect(new Set(labels(result.shrunk.scenario))).toEqual(new Set(['first', 'second']));
    expect(result.shrunk.scenario.timeline.map((e) => Object.keys(e).find((k) => k !== 'at' && k !== 'label'))).toEqual(['crash', 'crash', 'restart', 'restart']);
    expect(result.minimal).toBe(true);
    expect(result.kept.map((k) => k.without)).toEqual(['passes', 'passes']);
    expect(result.stopped).toBe(false);
    // the shrunk run still shows it, from the file's text alone
    const again = await twoDownRunner().run({ yaml: result.shrunk.yaml });
    expect(again?.violations.map((v) => v.invariant)).toContain('two-sealers-down');
    expect(result.shrunk.durationMs).toBeLessThan(result.original.durationMs);
  }, 120_000);

  it('stopped, it keeps the best scenario so far (which still fails) and says it is not minimal', async () => {
    const scenario = parseScenario(fiftyFaults(), FILE);
    const pool = new CandidatePool([twoDownRunner()]);
    const result = await new Shrinker({
      scenario,
      file: FILE,
      pool,
      onProgress: (p) => {
        if (p.phase === 'events' && p.runs >= 3) pool.stop();
      },
    }).run();
    expect(result.stopped).toBe(true);
    expect(result.minimal).toBe(false);
    expect(result.kept.every((k) => k.without === undefined)).toBe(true);
    expect(result.shrunk.events).toBeLessThan(50);
    expect(new Set(labels(result.shrunk.scenario))).toContain('first');
    const again = await twoDownRunner().run({ yaml: result.shrunk.yaml });
    expect(again?.violations.map((v) => v.invariant)).toContain('two-sealers-down');
  }, 60_000);
});

describe('shrink: the same result for any number of jobs', () => {
  // an oracle instead of simulations, with runs that end in a scrambled order: what the pool
  // answers, and so every acceptance, must not depend on it
  const oracle = (needs: (s: Scenario) => boolean) =>
    local(
      (job) =>
        new Promise((resolve) => {
          const s = parseScenario(job.yaml, FILE);
          const fail = needs(s);
          const delay = [...job.yaml].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1009, 3) % 7;
          setTimeout(
            () =>
              resolve({
                verdict: fail ? 'fail' : 'pass',
                violations: fail ? [{ invariant: 'planted', atMs: 3000, node: 'node0', height: 1, detail: '' }] : [],
                failed: [],
                digest: '',
                events: 0,
                virtualMs: 0,
                wallMs: delay,
                stoppedEarly: false,
                leaders: [],
              }),
            delay,
          );
        }),
    );
  const text = `name: many
duration: 40s
chain: { nodes: 7 }
groups:
  - { id: 1, sealers: 7 }
  - { id: 2, consensus: raft, sealers: [node0, node1, node2] }
network: { loss: 0.05, latency: { kind: constant, ms: 10 } }
workloads:
  - { kind: helloworld, rate: 10 }
  - { kind: token, rate: 4, accounts: 6, group: 2 }
timeline:
${Array.from({ length: 30 }, (_, i) => `  - { at: ${i + 1}s, crash: node${i % 7}, label: c${i} }\n  - { at: ${i + 1}.5s, restart: node${i % 7}, label: c${i} }`).join('\n')}
byzantine:
  - { node: node5, behaviour: silent, from: 5s, until: 30s }
`;
  // fails when crash c7 and c21 are there, the token workload sends, and there are at least 4 nodes
  const needs = (s: Scenario) => labels(s).includes('c7') && labels(s).includes('c21') && s.workloads.some((w) => w.kind === 'token') && s.chain.nodes >= 4;

  it('--jobs 1 and 4 accept the same candidates and end with the same file', async () => {
    const scenario = parseScenario(text, FILE);
    const results = [];
    for (const jobs of [1, 4]) {
      const pool = new CandidatePool(Array.from({ length: jobs }, () => oracle(needs)));
      results.push(await new Shrinker({ scenario, file: FILE, pool }).run());
    }
    const [one, four] = results;
    expect(four!.shrunk.yaml).toBe(one!.shrunk.yaml);
    expect(four!.kept).toEqual(one!.kept);
    expect(four!.phases.map((p) => [p.phase, p.accepted])).toEqual(one!.phases.map((p) => [p.phase, p.accepted]));
    expect(one!.shrunk.events).toBe(3);
    expect(one!.shrunk.settings).toBe(0);
    expect(new Set(labels(one!.shrunk.scenario))).toEqual(new Set(['c7', 'c21']));
    expect(one!.shrunk.nodes).toBe(4);
    // group 1 went (nothing needed it); group 2 stays for its token workload
    expect(one!.shrunk.scenario.groups.map((g) => g.id)).toEqual([2]);
    expect(one!.minimal).toBe(true);
  });

  it('moves an event into the moment of another and drops that one, when one event at that moment does what both did', async () => {
    const text = `name: moment
duration: 20s
chain: { nodes: 4 }
timeline:
  - { at: 3s, crash: node1, label: who }
  - { at: 4s, restart: node1, label: who }
  - { at: 10s, crash: node2, label: when }
  - { at: 11s, restart: node2, label: when }
`;
    // planted: node1 was crashed at some time, and some sealer is down at 10.2 s
    const downAt = (s: Scenario, node: string | undefined, ms: number) =>
      s.timeline.some((e, i) => {
        if (!('crash' in e) || (node !== undefined && e.crash !== node)) return false;
        const restart = s.timeline.slice(i + 1).find((r) => 'restart' in r && r.restart === e.crash);
        return durationMs(e.at) <= ms && (restart === undefined || durationMs(restart.at) > ms);
      });
    const needs = (s: Scenario) => s.timeline.some((e) => 'crash' in e && e.crash === 'node1') && downAt(s, undefined, 10_200);
    const results = [];
    for (const jobs of [1, 3]) results.push(await new Shrinker({ scenario: parseScenario(text, FILE), file: FILE, pool: new CandidatePool(Array.from({ length: jobs }, () => oracle(needs))) }).run());
    const [one, three] = results;
    expect(three!.shrunk.yaml).toBe(one!.shrunk.yaml);
    // delta debugging alone keeps both (each is needed as drawn); the move keeps one: node1 down at 10.2 s
    expect(one!.phases.find((p) => p.phase === 'events')!.accepted).toBe(0);
    expect(one!.phases.find((p) => p.phase === 'moves')!.accepted).toBeGreaterThan(0);
    expect(one!.shrunk.events).toBe(1);
    expect(downAt(one!.shrunk.scenario, 'node1', 10_200)).toBe(true);
    expect(one!.minimal).toBe(true);
    expect(one!.kept.map((k) => k.without)).toEqual(['passes']);
  });

  it('narrows a mutating node to the mutations the violation needs and hostile clients to the behaviours it needs; stale leaders, clock skews and pool bursts go', async () => {
    const drawn = `name: adversaries
duration: 40s
chain: { nodes: 4, txPoolLimit: 100 }
workloads:
  - { kind: helloworld, rate: 10 }
  - { kind: hostile, rate: 0.4, behaviours: [multi-submit, nonce-race, replay-committed, block-limit-edges], burst: 200 }
  - { kind: hostile, rate: 0.08, stop: 12.501s, behaviours: [pool-burst], burst: 200 }
timeline:
  - { at: 4s, isolateLeader: { group: 1, for: 4.2s, oneWay: true }, label: swarm stale leader }
  - { at: 9s, clockSkew: { node: node3, offsetMs: -2400, drift: 0.12 }, label: swarm clock skew }
  - { at: 13s, clockSkew: { node: node3, offsetMs: 0, drift: 0 }, label: swarm clock set right }
  - { at: 15s, crash: [node2], label: swarm crash }
  - { at: 17s, restart: [node2], label: swarm restart }
byzantine:
  - { node: node1, behaviour: mutate, mutations: [view+1, view-1, height+1, other-hash, duplicate, replay, second-vote], rate: 0.35, from: 20s, until: 28s }
`;
    // fails when node1 mutates with view+1 (in any window) while hostile clients race nonces
    const needs = (s: Scenario) =>
      s.byzantine.some((b) => 'node' in b && b.node === 'node1' && b.behaviour === 'mutate' && (b.mutations ?? []).includes('view+1')) &&
      s.workloads.some((w) => w.kind === 'hostile' && (w.behaviours ?? []).includes('nonce-race'));
    const scenario = parseScenario(drawn, FILE);
    const results = [];
    for (const jobs of [1, 3]) results.push(await new Shrinker({ scenario, file: FILE, pool: new CandidatePool(Array.from({ length: jobs }, () => oracle(needs))) }).run());
    const [one, three] = results;
    expect(three!.shrunk.yaml).toBe(one!.shrunk.yaml);
    expect(one!.original.events).toBe(7);
    expect(one!.shrunk.events).toBe(2);
    const shrunk = parseScenario(one!.shrunk.yaml, FILE);
    expect(shrunk.byzantine).toEqual([expect.objectContaining({ node: 'node1', behaviour: 'mutate', mutations: ['view+1'], rate: 0.35 })]);
    expect(shrunk.workloads).toEqual([expect.objectContaining({ kind: 'hostile', behaviours: ['nonce-race'] })]);
    expect(shrunk.timeline).toEqual([]);
    expect(shrunk.swarm).toBeUndefined();
    expect(one!.minimal).toBe(true);
    expect(one!.kept.map((k) => [k.now.replace(/ \{.*| in group.*/, ''), k.without])).toEqual([
      ['workload hostile', 'passes'],
      ['byzantine node1 mutate (view+1 at rate 0.35)', 'passes'],
    ]);
    expect(one!.kept[1]!.was).toContain('(view+1, view-1, height+1, other-hash, duplicate, replay, second-vote at rate 0.35)');
  });
});

describe('what a candidate must show to be kept', () => {
  const violation = (invariant: string): CandidateViolation => ({ invariant, atMs: 1, node: 'node1', height: 3, detail: 'd' });
  const outcome = (verdict: CandidateOutcome['verdict'], invariants: string[], failed: string[] = []): CandidateOutcome => ({
    verdict,
    violations: invariants.map(violation),
    failed,
    digest: 'x',
    events: 1,
    virtualMs: 1,
    wallMs: 1,
    stoppedEarly: false,
    leaders: [],
  });

  it('the target invariant itself: another violation alone is another bug, not a smaller run of this one', () => {
    const target = { kind: 'invariant', name: 'pbft-lock' } as const;
    expect(reproduces(outcome('fail', ['pbft-lock']), target)).toBe(true);
    expect(reproduces(outcome('fail', ['raft-double-vote', 'pbft-lock']), target)).toBe(true);
    expect(reproduces(outcome('fail', ['pbft-conflicting-quorums']), target)).toBe(false);
    expect(reproduces(outcome('fail', [], ['safety: one block per height']), target)).toBe(false);
    expect(reproduces(outcome('error', ['pbft-lock']), target)).toBe(false);
    expect(reproduces(outcome('pass', []), target)).toBe(false);
  });

  it('the target expectation by its name; the first invariant is the target when none is named', () => {
    const stall = 'liveness: after the faults stop, a probe transaction reaches every live honest node within 15000 ms';
    expect(reproduces(outcome('fail', [], [stall]), { kind: 'expectation', name: stall })).toBe(true);
    expect(reproduces(outcome('fail', ['pbft-lock'], ['at least 5 workload transactions committed']), { kind: 'expectation', name: stall })).toBe(false);
    expect(targetOf(outcome('fail', ['pbft-lock', 'raft-vote-term'], [stall]))).toEqual({ kind: 'invariant', name: 'pbft-lock' });
    expect(targetOf(outcome('fail', [], [stall]))).toEqual({ kind: 'expectation', name: stall });
    expect(targetOf(outcome('fail', ['pbft-lock'], [stall]), 'liveness')).toEqual({ kind: 'expectation', name: stall });
  });
});
