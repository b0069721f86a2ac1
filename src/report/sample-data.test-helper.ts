import type { ReportData } from './report-data.js';

/** A small deterministic generator so the sample is the same on every call. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const CRASH = { fromMs: 20_000, untilMs: 35_000 };
const PARTITION = { fromMs: 40_000, untilMs: 48_000 };
const DURATION_MS = 60_000;
const BLOCK_MS = 1_000;
const RATE = 50;

/**
 * A realistic report of a 60 s, 4-node PBFT run: node3 crashed from 20 s to 35 s (then caught up),
 * a 2|2 partition from 40 s to 48 s stalled the group (no quorum) and cost a few view changes, 50 tx/s
 * of load, every transaction receipted.
 */
export function sampleReportData(): ReportData {
  const random = lcg(42);
  const nodes = ['node0', 'node1', 'node2', 'node3'];
  const stalled = (t: number): boolean => t >= PARTITION.fromMs && t < PARTITION.untilMs;

  // group height: one block a second, none while partitioned, two catch-up blocks right after the heal
  const blockTimes: number[] = [];
  for (let t = BLOCK_MS; t <= DURATION_MS; t += BLOCK_MS) {
    if (stalled(t)) continue;
    const jitter = Math.round(random() * 120);
    blockTimes.push(t + jitter);
  }
  const heights: ReportData['heights'] = nodes.map((node, i) => {
    const points: Array<[number, number]> = [[0, 0]];
    blockTimes.forEach((t, index) => {
      const height = index + 1;
      const seenAt = t + 5 + i * 7;
      if (node === 'node3' && seenAt >= CRASH.fromMs && seenAt < CRASH.untilMs) return;
      if (node === 'node3' && seenAt >= CRASH.untilMs && points[points.length - 1]![1] < height - 1) {
        // block sync after the restart: the missing blocks arrive in a burst
        const from = points[points.length - 1]![1] + 1;
        for (let h = from; h < height; h++) points.push([CRASH.untilMs + 400 + (h - from) * 60, h]);
      }
      points.push([seenAt, height]);
    });
    return { node, group: 1, points };
  });

  // transactions: submitted at RATE/s, committed in the next block that is sealed after submission
  const latencies: number[] = [];
  const bucketMs = 1_000;
  const committedPerBucket = new Array<number>(DURATION_MS / bucketMs).fill(0);
  let submitted = 0;
  for (let t = 0; t < DURATION_MS - 2_000; t += 1_000 / RATE) {
    submitted += 1;
    const block = blockTimes.find((b) => b > t + 150);
    if (block === undefined) continue;
    latencies.push(Math.round(block - t + random() * 40));
    committedPerBucket[Math.min(committedPerBucket.length - 1, Math.floor(block / bucketMs))]! += 1;
  }

  // PBFT views: two view changes during the partition, one when node3 comes back
  const consensusRounds: ReportData['consensusRounds'] = nodes.map((node) => ({
    node,
    group: 1,
    kind: 'view' as const,
    points:
      node === 'node3'
        ? [[0, 0], [CRASH.untilMs + 300, 2], [PARTITION.fromMs + 3_000, 3], [PARTITION.fromMs + 6_000, 4]]
        : [[0, 0], [CRASH.fromMs + 3_100, 1], [CRASH.fromMs + 3_400, 2], [PARTITION.fromMs + 3_000, 3], [PARTITION.fromMs + 6_000, 4]],
  }));

  const messages = nodes.map((node, i) => {
    const sent = 9_800 + Math.round(random() * 900) - (node === 'node3' ? 2_600 : 0);
    return { node, sent, received: sent - 150 + i * 40, dropped: node === 'node3' ? 1_240 : 310 + i * 25 };
  });

  const committed = latencies.length;
  return {
    scenario: {
      name: 'crash-and-partition',
      file: 'scenarios/crash-and-partition.yaml',
      description: 'Four PBFT sealers under 50 tx/s: one crashes and restarts, then the network splits 2|2 and heals.',
      seed: 42,
      durationMs: DURATION_MS,
    },
    verdict: 'pass',
    replayCommand: 'npx twinchain run scenarios/crash-and-partition.yaml --seed 42',
    wallMs: 4_870,
    virtualMs: DURATION_MS,
    nodes: nodes.map((name) => ({ name, roles: 'g1 sealer' })),
    groups: [{ id: 1, consensus: 'pbft', sealers: nodes, observers: [] }],
    heights,
    throughput: [{ group: 1, bucketMs, txPerSecond: committedPerBucket }],
    latency: { samplesMs: latencies },
    consensusRounds,
    messages,
    faults: [
      { ...CRASH, kind: 'crash', description: 'crash node3 (restarted at 35 s)', nodes: ['node3'] },
      {
        ...PARTITION,
        kind: 'partition',
        description: 'partition {node0, node1} | {node2, node3}',
        nodes: ['node0', 'node1', 'node2', 'node3'],
      },
      { fromMs: 50_000, kind: 'network', description: 'link loss 2% on every link until the end', nodes: [] },
    ],
    expectations: [
      { name: 'safety', ok: true, detail: 'no two nodes committed different blocks at any height' },
      { name: 'liveness within 15s', ok: true, detail: 'probe transaction committed on all 4 nodes 1.2 s after the last fault' },
      { name: 'minHeight 40', ok: true, detail: `reached height ${blockTimes.length}` },
      { name: 'allReceipted', ok: true, detail: `${committed} of ${committed} accepted transactions have receipts on every live node` },
      { name: 'maxViewChanges 6', ok: true, detail: '4 view changes' },
    ],
    violations: [],
    totals: { submitted, committed, failed: 0, blocks: blockTimes.length, viewChanges: 4 },
  };
}

/**
 * A large run: `nodes` PBFT sealers in two groups over `durationMs`, a block every 100 ms per group
 * (so height series exceed the downsampling threshold), 1,000 tx/s with a latency sample each,
 * 100 ms throughput buckets, a view change every minute and a crash every two minutes.
 */
export function largeReportData(nodes = 16, durationMs = 600_000): ReportData {
  const random = lcg(7);
  const names = Array.from({ length: nodes }, (_, i) => `node${i}`);
  const groupIds = [1, 2];
  const blockMs = 100;
  const bucketMs = 100;
  const heights: ReportData['heights'] = [];
  const consensusRounds: ReportData['consensusRounds'] = [];
  for (const group of groupIds) {
    for (const [i, node] of names.entries()) {
      const points: Array<[number, number]> = [];
      for (let h = 0; h * blockMs <= durationMs; h++) points.push([h * blockMs + ((i * 3 + group) % 9), h]);
      heights.push({ node, group, points });
      const views: Array<[number, number]> = [[0, 0]];
      for (let t = 60_000; t < durationMs; t += 60_000) views.push([t + i * 5, views.length]);
      consensusRounds.push({ node, group, kind: 'view', points: views });
    }
  }
  const samplesMs = Array.from({ length: durationMs }, () => 150 + Math.round(random() * 600 + (random() < 0.002 ? 20_000 : 0)));
  const buckets = durationMs / bucketMs;
  const throughput = groupIds.map((group) => ({ group, bucketMs, txPerSecond: Array.from({ length: buckets }, () => 450 + Math.round(random() * 100)) }));
  const faults: ReportData['faults'] = [];
  for (let t = 30_000; t < durationMs; t += 120_000) {
    const node = names[(t / 30_000) % nodes]!;
    faults.push({ fromMs: t, untilMs: t + 20_000, kind: 'crash', description: `crash ${node}`, nodes: [node] });
  }
  return {
    scenario: { name: 'large-run', file: 'scenarios/large-run.yaml', seed: 7, durationMs },
    verdict: 'pass',
    replayCommand: 'npx twinchain run scenarios/large-run.yaml --seed 7',
    wallMs: durationMs / 3,
    virtualMs: durationMs,
    nodes: names.map((name) => ({ name, roles: 'g1 sealer, g2 sealer' })),
    groups: groupIds.map((id) => ({ id, consensus: 'pbft' as const, sealers: names, observers: [] })),
    heights,
    throughput,
    latency: { samplesMs },
    consensusRounds,
    messages: names.map((node, i) => ({ node, sent: 2_000_000 + i, received: 1_990_000 + i, dropped: 1_000 + i })),
    faults,
    expectations: [{ name: 'safety', ok: true, detail: 'no fork' }],
    violations: [],
    totals: { submitted: durationMs, committed: durationMs, failed: 0, blocks: (durationMs / blockMs) * 2, viewChanges: 9 * nodes },
  };
}

/** A run that recorded nothing: no transactions, faults, heights or messages. */
export function emptyReportData(): ReportData {
  return {
    scenario: { name: 'empty', file: 'scenarios/empty.yaml', seed: 1, durationMs: 10_000 },
    verdict: 'fail',
    replayCommand: 'npx twinchain run scenarios/empty.yaml --seed 1',
    wallMs: 0,
    virtualMs: 0,
    nodes: [],
    groups: [],
    heights: [],
    throughput: [],
    latency: { samplesMs: [] },
    consensusRounds: [],
    messages: [],
    faults: [],
    expectations: [],
    violations: [],
    totals: { submitted: 0, committed: 0, failed: 0, blocks: 0, viewChanges: 0 },
  };
}

/** Strings that try to break out of the HTML, the JSON script element and JavaScript string literals. */
export const HOSTILE = {
  name: '</script><script>window.__pwned=1</script><!--<script>\u2028\u2029',
  description: '"><img src=x onerror="window.__pwned=2"> </SCRIPT ><!-- & \' --> ]]>',
  detail: '<b>bold</b> & <script>window.__pwned=3</script>',
};

/** The sample run with hostile strings wherever the user controls text, failing with a violation. */
export function hostileReportData(): ReportData {
  const data = sampleReportData();
  data.scenario.name = HOSTILE.name;
  data.scenario.description = HOSTILE.description;
  data.scenario.file = `scenarios/${HOSTILE.name}.yaml`;
  data.replayCommand = `npx twinchain run 'scenarios/${HOSTILE.name}.yaml' --seed 42`;
  data.verdict = 'fail';
  data.expectations[1] = { name: HOSTILE.name, ok: false, detail: HOSTILE.detail };
  data.violations = [{ atMs: 41_200, invariant: HOSTILE.name, detail: HOSTILE.detail }];
  data.faults[0]!.description = HOSTILE.detail;
  data.faults[0]!.kind = HOSTILE.name;
  data.nodes[0]!.roles = HOSTILE.detail;
  return data;
}

/**
 * The sample run with a dozen faults, as a swarm seed draws them: crashes of one node 0.3 s apart,
 * overlapping faults on the same node, message faults on every link (no node), a long partition
 * of every node, and two instants (a membership and a config change) at the same moment.
 */
export function manyFaultsReportData(): ReportData {
  const data = sampleReportData();
  const all = ['node0', 'node1', 'node2', 'node3'];
  const crash = (node: string, fromMs: number, untilMs: number): ReportData['faults'][number] => ({
    fromMs,
    untilMs,
    kind: 'crash',
    description: `${node} crashed (swarm churn crash)`,
    nodes: [node],
  });
  data.faults = [
    { fromMs: 4_964, untilMs: 7_127, kind: 'messages', description: 'pbft.prepare every node → node0 delayed by 533 ms (swarm messages)', nodes: ['node0'] },
    { fromMs: 19_223, untilMs: 23_207, kind: 'messages', description: 'pbft.prepare every node → node2 dropped with probability 0.86', nodes: ['node2'] },
    crash('node3', 22_917, 23_408),
    crash('node3', 24_813, 25_210),
    crash('node3', 26_148, 26_881),
    crash('node3', 27_591, 27_917),
    crash('node3', 29_163, 29_294),
    crash('node3', 30_383, 30_684),
    { fromMs: 24_445, untilMs: 27_357, kind: 'messages', description: 'pbft.viewchange every node → node0 dropped for 2912 ms', nodes: ['node0'] },
    { fromMs: 40_000, untilMs: 48_000, kind: 'partition', description: 'partition {node0, node1} | {node2, node3}', nodes: all },
    { fromMs: 41_000, untilMs: 45_000, kind: 'pause', description: 'node1 paused', nodes: ['node1'] },
    { fromMs: 50_000, untilMs: 50_000, kind: 'membership', description: 'addSealer(node3) in group 1', nodes: ['node3'] },
    { fromMs: 50_000, untilMs: 50_000, kind: 'system config', description: 'setValueByKey(tx_count_limit, 30) in group 1', nodes: [] },
    { fromMs: 52_000, kind: 'network', description: 'link loss 2% on every link until the end', nodes: [] },
  ];
  return data;
}
