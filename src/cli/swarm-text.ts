import path from 'node:path';
import type { SwarmRun } from '../sim/index.js';
import { failingSeedLines } from './seed-commands.js';

/**
 * What swarm prints for its seeds, shared by a scan, a shard and a merge of shards, so that a
 * merge prints the rows and verdict lines one unsharded scan of the same seeds prints.
 */

/** The row printed for one seed (two lines when something failed). */
export function seedRow(run: SwarmRun): string {
  const seed = String(run.seed).padStart(4);
  const drawn = run.drawn.join('; ') || 'no faults drawn';
  if (run.verdict === 'error') return `  seed ${seed}  ERROR  ${drawn}\n        ${run.error ?? 'unknown error'}`;
  const speed = ((run.virtualMs ?? 0) / Math.max(1, run.wallMs)).toFixed(1).padStart(6);
  const failed = run.failed.length > 0 ? `\n        failed: ${run.failed.map((e) => e.name).join('; ')}` : '';
  const made = run.failed.length > 0 && run.mutations ? `\n        mutations made: ${mutationText(run.mutations)}` : '';
  return `  seed ${seed}  ${run.verdict === 'pass' ? 'pass' : 'FAIL'}  ${speed}×  ${run.blocks ?? 0} blocks  ${drawn}${failed}${made}`;
}

/** "node1: view+1 ×3, duplicate ×2; node2: …", most frequent first. */
export function mutationText(mutations: Readonly<Record<string, Readonly<Record<string, number>>>>): string {
  return Object.entries(mutations)
    .map(([node, counts]) => `${node}: ${Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m, n]) => `${m} ×${n}`).join(', ')}`)
    .join('; ');
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface VerdictContext {
  /** The scenario file as the replay commands name it. */
  readonly file: string;
  readonly out: string;
  /** A replay of one seed (--seed S): its report, trace and swarm.json are named. */
  readonly single: boolean;
  readonly swarmJson: string;
}

/** The lines after the wall-time line: all passed, or the failing seeds with the commands that replay (and shrink) each. */
export function verdictLines(runs: readonly SwarmRun[], ctx: VerdictContext): string[] {
  const failing = runs.filter((r) => r.verdict !== 'pass');
  const trace = (seed: number) => path.join(ctx.out, `seed-${seed}`, 'trace.jsonl');
  if (failing.length === 0) {
    const first = runs[0];
    return [`all ${runs.length} seeds passed${ctx.single && first?.report ? `; report ${first.report}, trace ${trace(first.seed)}, ${ctx.swarmJson}` : ''}`];
  }
  const lines = [`${failing.length} of ${runs.length} seeds FAILED:`];
  for (const r of failing) {
    const where =
      r.error !== undefined
        ? `internal error: ${r.error}`
        : r.report === null
          ? 'its report is not among the merged inputs; the replay writes it and the trace'
          : `report ${r.report}${ctx.single ? `, trace ${trace(r.seed)}, ${ctx.swarmJson}` : '; the replay also writes the trace'}`;
    lines.push(...failingSeedLines(ctx.file, r.seed, r.replay, where, r.verdict === 'fail'));
  }
  return lines;
}
