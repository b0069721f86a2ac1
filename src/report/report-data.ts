/** Everything a scenario run hands to the report: plain values, no simulator types. */
export interface ReportData {
  scenario: { name: string; file: string; description?: string; seed: number | string; durationMs: number };
  verdict: 'pass' | 'fail';
  /** The command that reruns this exact scenario, e.g. "npx twinchain run scenarios/x.yaml --seed 42". */
  replayCommand: string;
  /** Wall-clock time the run took, and the virtual time it simulated. */
  wallMs: number;
  virtualMs: number;
  /** Roles per node, e.g. "g1 sealer, g2 observer". */
  nodes: Array<{ name: string; roles: string }>;
  groups: Array<{ id: number; consensus: 'pbft' | 'raft'; sealers: string[]; observers: string[] }>;
  /** Block height over virtual time: [virtual ms, height] change points of a step series, in time order. */
  heights: Array<{ node: string; group: number; points: Array<[number, number]> }>;
  /** Committed transactions per second, one value per bucket of bucketMs starting at t = 0. */
  throughput: Array<{ group: number; bucketMs: number; txPerSecond: number[] }>;
  /** Submit → commit latency of every receipted transaction. */
  latency: { samplesMs: number[] };
  /** PBFT view or Raft term over virtual time: [virtual ms, view or term] change points, in time order. */
  consensusRounds: Array<{ node: string; group: number; kind: 'view' | 'term'; points: Array<[number, number]> }>;
  messages: Array<{ node: string; sent: number; received: number; dropped: number }>;
  /** untilMs undefined: the fault lasts until the end of the run. */
  faults: ReportFault[];
  expectations: Array<{ name: string; ok: boolean; detail: string }>;
  /** Safety invariant violations; usually empty. */
  violations: Array<{ atMs: number; invariant: string; detail: string }>;
  totals: { submitted: number; committed: number; failed: number; blocks: number; viewChanges: number };
  /**
   * Another run's faults, drawn beside this run's on one time axis: a shrunk run shows the run it
   * was shrunk from. `title` heads its timeline, `note` says what it is.
   */
  original?: { title: string; note: string; durationMs: number; nodes: string[]; faults: ReportFault[] };
}

export interface ReportFault {
  fromMs: number;
  untilMs?: number;
  kind: string;
  description: string;
  nodes: string[];
}
