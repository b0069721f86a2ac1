import { z } from 'zod';
import { BYZANTINE_KINDS, byzantineSettingProblem } from '../../node/index.js';

/** The most nodes one scenario may have (the simulator's limit, documented with chain.nodes in the README). */
export const MAX_SCENARIO_NODES = 300;
import type { RecordedTraffic } from '../../replay/index.js';
import { HOSTILE_BEHAVIOURS } from './hostile-behaviours.js';

/**
 * "60s", "1.5s", "500ms", "2m" or "1h". A bare number is refused: it was once read as
 * milliseconds, so `duration: 60` ran for 60 ms. (Code that builds scenarios may still pass
 * numbers of ms to durationMs; files may not.)
 */
export const duration = z
  .union([z.number(), z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'expected a duration like 500ms, 10s, 1.5m or 1h')])
  .refine((value) => typeof value === 'string', {
    error: (issue) => {
      const n = issue.input as number;
      return `${n} has no unit: ${n >= 0 ? `did you mean ${n}s? (` : '('}a duration is a number with ms, s, m or h)`;
    },
  });

const nodeName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'expected a node name like node0');
const nodeList = z.union([nodeName, z.array(nodeName).min(1)]);

/** A `nodeList` value (one name or several) as a list. */
export const namesOf = (value: string | readonly string[]): readonly string[] => (typeof value === 'string' ? [value] : value);
const probability = z.number().min(0).max(1);

const latency = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('constant'), ms: z.number().nonnegative() }).strict(),
  z.object({ kind: z.literal('uniform'), minMs: z.number().nonnegative(), maxMs: z.number().nonnegative() }).strict(),
  z.object({ kind: z.literal('exponential'), minMs: z.number().nonnegative(), meanMs: z.number().nonnegative() }).strict(),
  z.object({ kind: z.literal('normal'), meanMs: z.number().nonnegative(), stdDevMs: z.number().nonnegative(), minMs: z.number().nonnegative().optional() }).strict(),
]);

const linkSettings = {
  latency: latency.optional(),
  jitterMs: z.number().nonnegative().optional(),
  loss: probability.optional(),
  duplicate: probability.optional(),
  reorder: probability.optional(),
  reorderDelayMs: z.number().nonnegative().optional(),
  queueCapacity: z.number().int().positive().optional(),
};

export const linkSettingsSchema = z.object(linkSettings).strict();

const groupSchema = z
  .object({
    id: z.number().int().min(1).max(32767),
    consensus: z.enum(['pbft', 'raft']).default('pbft'),
    /** Node names, or a count: the first N nodes. */
    sealers: z.union([z.array(nodeName).min(1), z.number().int().min(1)]).optional(),
    observers: z.union([z.array(nodeName), z.number().int().min(0)]).optional(),
    /** Nodes that keep the group's ledger without a role at genesis (to be added later). */
    spare: z.array(nodeName).optional(),
    txCountLimit: z.number().int().min(1).optional(),
    txGasLimit: z.number().int().min(100_000).optional(),
    /** Seconds; the SystemConfig precompile's bounds (3 ≤ t < 4294967). */
    consensusTimeout: z.number().int().min(3).max(4_294_966).optional(),
    /** Raft election timeout bounds in ms (FISCO's min_elect_time / max_elect_time; defaults 1000, 2000). */
    minElectTime: z.number().int().min(4).optional(),
    maxElectTime: z.number().int().min(4).optional(),
    /** `[state] type`: FISCO's storage state (stateRoot = dbHash) or Twinchain's trie. */
    state: z.enum(['storage', 'mpt']).optional(),
  })
  .strict();

const workloadBase = {
  group: z.number().int().min(1).default(1),
  /** Transactions per (virtual) second. */
  rate: z.number().positive().max(10_000),
  start: duration.optional(),
  stop: duration.optional(),
  /** Nodes whose JSON-RPC receives the transactions (default: every member of the group, at random). */
  targets: nodeList.optional(),
};

const workloadSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('helloworld'), ...workloadBase }).strict(),
  z.object({ kind: z.literal('deploy'), ...workloadBase }).strict(),
  z.object({ kind: z.literal('token'), ...workloadBase, accounts: z.number().int().min(2).max(1000).default(10) }).strict(),
  z
    .object({
      kind: z.literal('mix'),
      ...workloadBase,
      weights: z.object({ helloworld: z.number().min(0).default(0), deploy: z.number().min(0).default(0), token: z.number().min(0).default(0) }).strict(),
    })
    .strict(),
  /** Hostile clients: one case per tick of the behaviours listed (default: all), held to FISCO's answers (see hostile-clients.ts). */
  z
    .object({
      kind: z.literal('hostile'),
      ...workloadBase,
      behaviours: z.array(z.enum(HOSTILE_BEHAVIOURS)).min(1, 'list at least one hostile behaviour').optional(),
      /** pool-burst: at most this many transactions in one burst. */
      burst: z.number().int().min(1).max(2000).default(200),
    })
    .strict(),
  /** A recording's signed transactions sent again, in recorded order (read when the scenario loads). */
  z
    .object({
      kind: z.literal('replay'),
      ...workloadBase,
      /** A recording (twinchain record), relative to the scenario file. */
      file: z.string().min(1, 'name a recording file (relative to the scenario file)'),
      /** asap: each recorded block as soon as the one before is settled; recorded: also not before its recorded time after the first block's. */
      pace: z.enum(['asap', 'recorded']).default('asap'),
      /** A cap in tx per virtual second (default: none). */
      rate: workloadBase.rate.optional(),
      /** same-receipts: every recorded transaction must end with its recorded status and output on every live honest node. */
      expect: z.literal('same-receipts').optional(),
    })
    .strict(),
]);

const memberChange = z.object({ group: z.number().int().min(1).default(1), node: nodeName }).strict();

/** One timed action: exactly one of the action keys besides `at`. */
const timelineAction = z
  .object({
    at: duration,
    label: z.string().optional(),
    crash: nodeList.optional(),
    /** Crash whoever leads the group at that moment (PBFT: the next block's leader; Raft: the leader), and restart it after `for` if given. */
    crashLeader: z.object({ group: z.number().int().min(1).default(1), for: duration.optional() }).strict().optional(),
    restart: nodeList.optional(),
    pause: nodeList.optional(),
    resume: nodeList.optional(),
    partition: z.array(z.array(nodeName).min(1)).min(2).optional(),
    partitionOneWay: z.object({ from: nodeList, to: nodeList }).strict().optional(),
    isolate: nodeName.optional(),
    /**
     * Cut off whoever leads the group at that moment for `for`, then heal that cut (a stale
     * leader: long enough and the others move to a new view or term without it). oneWay: only
     * what comes in is cut, so the old leader goes on sending all along.
     */
    isolateLeader: z.object({ group: z.number().int().min(1).default(1), for: duration, oneWay: z.boolean().default(false) }).strict().optional(),
    heal: z.literal(true).optional(),
    clog: z.object({ between: z.tuple([nodeName, nodeName]), for: duration, oneWay: z.boolean().default(false) }).strict().optional(),
    network: linkSettingsSchema.optional(),
    link: z.object({ from: nodeList, to: nodeList, ...linkSettings, reset: z.boolean().optional() }).strict().optional(),
    /** A clock off by at most a day, running at most 11 times as fast (drift 10); drift > -1 keeps it moving forward. */
    clockSkew: z
      .object({
        node: nodeName,
        offsetMs: z.number().min(-86_400_000, 'at most a day (86400000 ms) either way').max(86_400_000, 'at most a day (86400000 ms) either way').default(0),
        drift: z.number().gt(-1, 'must be above -1 (the clock must move forward)').max(10, 'at most 10 (a clock 11 times as fast)').default(0),
      })
      .strict()
      .optional(),
    addSealer: memberChange.optional(),
    addObserver: memberChange.optional(),
    removeNode: memberChange.optional(),
    setConfig: z.object({ group: z.number().int().min(1).default(1), key: z.string(), value: z.union([z.string(), z.number()]) }).strict().optional(),
    /** A message-kind fault: drop (always, or with a probability) or delay the messages of these kinds from `from` to `to` (default: all nodes) for `for`. */
    messages: z
      .object({
        kinds: z.array(z.string()).min(1, 'list at least one message kind, e.g. [pbft.commit]'),
        from: nodeList.optional(),
        to: nodeList.optional(),
        drop: z.union([z.literal(true), z.number().gt(0, 'a drop probability must be above 0').max(1, 'a drop probability is at most 1')]).optional(),
        delay: duration.optional(),
        for: duration,
      })
      .strict()
      .optional(),
  })
  .strict();

export const ACTION_KEYS = [
  'crash',
  'crashLeader',
  'restart',
  'pause',
  'resume',
  'partition',
  'partitionOneWay',
  'isolate',
  'isolateLeader',
  'heal',
  'clog',
  'network',
  'link',
  'clockSkew',
  'addSealer',
  'addObserver',
  'removeNode',
  'setConfig',
  'messages',
] as const;

const byzantineSchema = z.union([
  z
    .object({
      node: nodeName,
      behaviour: z.enum(BYZANTINE_KINDS),
      /** bad-block and forge-sync: which bad contents (see the table in docs/scenarios.md). */
      variant: z.string().optional(),
      /** mutate: the mutations it may make (default: those swarm draws for the group's consensus). */
      mutations: z.array(z.string()).optional(),
      /** mutate: the share of its messages it mutates (default 0.3). */
      rate: z.number().optional(),
      group: z.number().int().min(1).default(1),
      from: duration.optional(),
      until: duration.optional(),
    })
    .strict()
    .superRefine((b, ctx) => {
      const problem = byzantineSettingProblem(b.behaviour, b.variant, { ...(b.mutations ? { mutations: b.mutations } : {}), ...(b.rate !== undefined ? { rate: b.rate } : {}) });
      if (!problem) return;
      const path = b.variant !== undefined ? 'variant' : b.mutations !== undefined && problem.includes('mutation') ? 'mutations' : b.rate !== undefined && problem.startsWith('rate') ? 'rate' : 'behaviour';
      ctx.addIssue({ code: 'custom', path: [path], message: problem });
    }),
  /** A second running instance with the node's identity (Twins). */
  z.object({ twins: nodeName }).strict(),
]);

/** [low, high] of a count drawn per swarm run. */
const countRange = z.tuple([
  z.number().int('a count is a whole number').min(0, 'a count must not be negative').max(100, 'at most 100 per run'),
  z.number().int('a count is a whole number').min(0, 'a count must not be negative').max(100, 'at most 100 per run'),
]);
const probabilityRange = z.tuple([
  z.number().min(0, 'a probability is between 0 and 1').max(1, 'a probability is between 0 and 1'),
  z.number().min(0, 'a probability is between 0 and 1').max(1, 'a probability is between 0 and 1'),
]);
const msRange = z.tuple([
  z.number().min(0, 'must not be negative').max(60_000, 'at most 60000 ms'),
  z.number().min(0, 'must not be negative').max(60_000, 'at most 60000 ms'),
]);

const swarmSchema = z
  .object({
    /** Crashes drawn per run (each later restarted), within the fault budget. */
    crashes: countRange.optional(),
    /** Partitions drawn per run (each later healed). */
    partitions: countRange.optional(),
    /** Message loss probability drawn per run. */
    loss: probabilityRange.optional(),
    /** Mean one-way latency (ms) drawn per run. */
    latencyMs: msRange.optional(),
    /** Pauses drawn per run. */
    pauses: countRange.optional(),
    /** Message-kind faults drawn per run (network faults: outside the node fault budget, inside the window). */
    messageFaults: countRange.optional(),
    /** Election churn drawn per run, within the fault budget: one node crashed and restarted repeatedly, or the leader crashed and a voter crashed briefly while the group elects. */
    churn: countRange.optional(),
    /** Byzantine windows drawn per run (a sealer with a behaviour fitting its group), within the fault budget, one node fault at a time. */
    adversaries: countRange.optional(),
    /** Stale leaders drawn per run, within the fault budget: the leader of the moment cut off (half the time only what comes in) past its view or election timeout, then healed while it still acts. */
    staleLeaders: countRange.optional(),
    /** Clock skews drawn per run (network faults: outside the budget, one per node): a node's clock off by up to 5 s and running up to 20% fast or slow, for a fault duration. */
    clockSkews: countRange.optional(),
    /** Hostile client cases per virtual second, drawn per run (0: none): a hostile workload doing a few of multi-submit, nonce-race, replay-committed and block-limit-edges. */
    hostile: z.tuple([z.number().min(0).max(10), z.number().min(0).max(10)]).optional(),
    /** Pool bursts drawn per run: one client's burst at one node of more transactions than its pool has room for (set chain.txPoolLimit low enough to fill). */
    poolBursts: countRange.optional(),
    /** Window in which faults start. */
    window: z.tuple([duration, duration]).optional(),
    /** How long a fault lasts. */
    faultDuration: z.tuple([duration, duration]).optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a lower-case name (letters, digits, - and _)'),
    description: z.string().optional(),
    seed: z.union([z.number().int(), z.string()]).default(1),
    duration,
    chain: z
      .object({
        suite: z.enum(['ecdsa', 'sm']).default('ecdsa'),
        supportedVersion: z.string().default('2.11.0'),
        /** Node count; names are node0, node1, … */
        nodes: z
          .number()
          .int('expected a whole number of nodes')
          .min(1, 'a chain needs at least 1 node')
          .max(MAX_SCENARIO_NODES, `at most ${MAX_SCENARIO_NODES} nodes (the simulator's limit per scenario)`),
        /** Consensus-message signatures: the node keys, or a cheap keyed hash for large groups. */
        consensusSignatures: z.enum(['real', 'simulated']).default('real'),
        /** Share execution results and signature checks between nodes (pure results, on by default). */
        shareComputation: z.boolean().default(true),
        /** `[tx_pool] limit`: transactions a node's pool holds per group (default 150000, as build_chain writes). */
        txPoolLimit: z.number().int().min(1).max(1_000_000).optional(),
      })
      .strict(),
    groups: z.array(groupSchema).min(1).default([{ id: 1, consensus: 'pbft' }]),
    network: z
      .object({ ...linkSettings, links: z.array(z.object({ from: nodeList, to: nodeList, ...linkSettings }).strict()).optional() })
      .strict()
      .default({}),
    workloads: z.array(workloadSchema).default([]),
    timeline: z.array(timelineAction).default([]),
    byzantine: z.array(byzantineSchema).default([]),
    expect: z
      .object({
        /** No two honest nodes commit different blocks at a height: always checked; present to be explicit. */
        safety: z.literal(true).default(true),
        /** After the last fault: faults frozen, a probe transaction must commit on every live node within this. */
        liveness: z.union([z.object({ within: duration }).strict(), z.literal(false)]).default({ within: '15s' }),
        minHeight: z.number().int().min(0).optional(),
        /** Every accepted transaction has a receipt on every live node at the end. */
        allReceipted: z.boolean().default(true),
        maxViewChanges: z.number().int().min(0).optional(),
        /** Committed transactions per virtual second, over the run. */
        minThroughput: z.number().min(0).optional(),
        /** Share of committed workload transactions that failed (status ≠ 0). */
        maxFailedRatio: z.number().min(0).max(1).optional(),
        /** At least this many workload transactions committed. */
        minCommitted: z.number().int().min(0).optional(),
        /** 99th percentile of submit-to-commit latency of workload transactions. */
        maxLatencyP99: duration.optional(),
      })
      .strict()
      .default({ safety: true, liveness: { within: '15s' }, allReceipted: true }),
    swarm: swarmSchema.optional(),
  })
  .strict();

export type ScenarioInput = z.input<typeof scenarioSchema>;
type ParsedScenario = z.output<typeof scenarioSchema>;
type ParsedWorkload = ParsedScenario['workloads'][number];
/** A replay workload; `recording` is filled in when the scenario file is loaded (loadScenarioFile / loadScenario). */
export type ReplayWorkload = Extract<ParsedWorkload, { kind: 'replay' }> & { recording?: RecordedTraffic };
export type Workload = Exclude<ParsedWorkload, { kind: 'replay' }> | ReplayWorkload;
export type Scenario = Omit<ParsedScenario, 'workloads'> & { workloads: Workload[] };
export type TimelineEntry = Scenario['timeline'][number];
export type ByzantineEntry = Scenario['byzantine'][number];
export type LinkSettings = z.output<typeof linkSettingsSchema>;
export type Latency = z.output<typeof latency>;
