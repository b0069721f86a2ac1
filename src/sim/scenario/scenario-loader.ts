import { readFile } from 'node:fs/promises';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ACTION_KEYS, scenarioSchema, type Scenario } from './scenario-schema.js';

/** A scenario file that cannot be run; the message names file, line, column and key. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly key: string,
    readonly detail: string,
  ) {
    super(`${file}:${line}:${column}: ${key ? `${key}: ` : ''}${detail}`);
  }
}

/** Milliseconds of a duration ("10s", "500ms", "1.5m", "1h", or a number of ms). */
export function durationMs(value: number | string): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  if (!m) throw new Error(`not a duration: ${value}`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * factor);
}

export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(path, 1, 1, '', `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseScenario(text, path);
}

type Path = ReadonlyArray<string | number>;

/** Parse and check a scenario; every problem becomes a ScenarioError pointing into the text. */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const pos = lines.linePos(error.pos[0]);
    throw new ScenarioError(file, pos.line, pos.col, '', `YAML: ${error.message.split('\n')[0]}`);
  }
  const locate = (path: Path, key?: string): { line: number; col: number } => {
    const node = nodeAt(doc, path, key);
    const offset = node?.range?.[0] ?? 0;
    return lines.linePos(offset);
  };
  const fail = (path: Path, detail: string, key?: string): never => {
    const pos = locate(path, key);
    const name = key ?? path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
    throw new ScenarioError(file, pos.line, pos.col, name, detail);
  };
  const raw = doc.toJS() as unknown;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail([], 'a scenario is a mapping of keys (name, duration, chain, ...)');
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = mostSpecific(parsed.error.issues);
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      return fail(issue.path as Path, `unknown key "${key}"`, key);
    }
    return fail(issue.path as Path, issue.message);
  }
  checkSemantics(parsed.data, fail);
  return parsed.data;
}

function mostSpecific(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  // union failures report one issue per branch; the deepest path points closest to the mistake
  let best = issues[0]!;
  const flat: z.core.$ZodIssue[] = [];
  const walk = (list: readonly z.core.$ZodIssue[], prefix: PropertyKey[]) => {
    for (const issue of list) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'invalid_union' && 'errors' in issue) for (const branch of issue.errors) walk(branch, path);
      else flat.push({ ...issue, path } as z.core.$ZodIssue);
    }
  };
  walk(issues, []);
  for (const issue of flat) if (issue.path.length > best.path.length || best.code === 'invalid_union') best = issue;
  return best;
}

function nodeAt(doc: Document, path: Path, key?: string) {
  const parentOrNode = doc.getIn(path as (string | number)[], true);
  if (key !== undefined && isMap(parentOrNode)) {
    const pair = parentOrNode.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
    if (pair && isNode(pair.key)) return pair.key;
  }
  if (isNode(parentOrNode)) return parentOrNode;
  // a missing key: point at its parent
  for (let n = path.length - 1; n >= 0; n--) {
    const up = doc.getIn(path.slice(0, n) as (string | number)[], true);
    if (isNode(up)) return up;
  }
  return doc.contents;
}

type Fail = (path: Path, detail: string, key?: string) => never;

/** Names of the nodes a scenario has: node0 … node{n-1}. */
export function nodeNames(scenario: Scenario): string[] {
  return Array.from({ length: scenario.chain.nodes }, (_, i) => `node${i}`);
}

function checkSemantics(s: Scenario, fail: Fail): void {
  const twins = s.byzantine.flatMap((b) => ('twins' in b ? [`${b.twins}-twin`] : []));
  const names = new Set([...nodeNames(s), ...twins]);
  const end = durationMs(s.duration);
  if (end <= 0) fail(['duration'], 'must be longer than 0');
  const known = (path: Path, value: string | readonly string[]) => {
    for (const n of typeof value === 'string' ? [value] : value) {
      if (!names.has(n)) fail(path, `unknown node "${n}" (this scenario has node0 … node${s.chain.nodes - 1}${twins.length > 0 ? ` and ${twins.join(', ')}` : ''})`);
    }
  };
  const groupIds = new Set<number>();
  s.groups.forEach((g, i) => {
    if (groupIds.has(g.id)) fail(['groups', i, 'id'], `group ${g.id} is defined twice`);
    groupIds.add(g.id);
    if (typeof g.sealers === 'number' && g.sealers > s.chain.nodes) fail(['groups', i, 'sealers'], `${g.sealers} sealers but only ${s.chain.nodes} nodes`);
    if (Array.isArray(g.sealers)) known(['groups', i, 'sealers'], g.sealers);
    if (Array.isArray(g.observers)) known(['groups', i, 'observers'], g.observers);
    if (g.spare) known(['groups', i, 'spare'], g.spare);
    if (g.minElectTime !== undefined && g.maxElectTime !== undefined && g.maxElectTime < g.minElectTime) fail(['groups', i, 'maxElectTime'], `must not be below minElectTime (${g.minElectTime})`);
  });
  const group = (path: Path, id: number) => {
    if (!groupIds.has(id)) fail(path, `unknown group ${id}`);
  };
  s.workloads.forEach((w, i) => {
    group(['workloads', i, 'group'], w.group);
    if (w.targets) known(['workloads', i, 'targets'], w.targets);
    if (w.start !== undefined && durationMs(w.start) > end) fail(['workloads', i, 'start'], 'starts after the scenario ends');
    if (w.kind === 'mix' && w.weights.helloworld + w.weights.deploy + w.weights.token <= 0) fail(['workloads', i, 'weights'], 'at least one weight must be positive');
  });
  s.timeline.forEach((t, i) => {
    const actions = ACTION_KEYS.filter((k) => t[k] !== undefined);
    if (actions.length !== 1) {
      fail(['timeline', i], actions.length === 0 ? `needs one action (${ACTION_KEYS.join(', ')})` : `has ${actions.length} actions (${actions.join(', ')}); give each its own entry`);
    }
    if (durationMs(t.at) > end) fail(['timeline', i, 'at'], `${t.at} is after the end of the scenario (${s.duration})`);
    for (const k of ['crash', 'restart', 'pause', 'resume', 'isolate'] as const) if (t[k] !== undefined) known(['timeline', i, k], t[k]!);
    if (t.partition) t.partition.forEach((side, j) => known(['timeline', i, 'partition', j], side));
    if (t.partitionOneWay) {
      known(['timeline', i, 'partitionOneWay', 'from'], t.partitionOneWay.from);
      known(['timeline', i, 'partitionOneWay', 'to'], t.partitionOneWay.to);
    }
    if (t.clog) known(['timeline', i, 'clog', 'between'], t.clog.between);
    if (t.link) {
      known(['timeline', i, 'link', 'from'], t.link.from);
      known(['timeline', i, 'link', 'to'], t.link.to);
    }
    if (t.clockSkew) known(['timeline', i, 'clockSkew', 'node'], t.clockSkew.node);
    for (const k of ['addSealer', 'addObserver', 'removeNode'] as const) {
      const change = t[k];
      if (change) {
        known(['timeline', i, k, 'node'], change.node);
        group(['timeline', i, k, 'group'], change.group);
      }
    }
    if (t.setConfig) group(['timeline', i, 'setConfig', 'group'], t.setConfig.group);
    if (t.crashLeader) {
      group(['timeline', i, 'crashLeader', 'group'], t.crashLeader.group);
      if (t.crashLeader.for !== undefined && durationMs(t.at) + durationMs(t.crashLeader.for) > end) fail(['timeline', i, 'crashLeader', 'for'], 'the restart would come after the end of the scenario');
    }
  });
  s.network.links?.forEach((l, i) => {
    known(['network', 'links', i, 'from'], l.from);
    known(['network', 'links', i, 'to'], l.to);
  });
  const twinned = new Set<string>();
  s.byzantine.forEach((b, i) => {
    if ('twins' in b) {
      if (!nodeNames(s).includes(b.twins)) fail(['byzantine', i, 'twins'], `unknown node "${b.twins}" (this scenario has node0 … node${s.chain.nodes - 1})`);
      if (twinned.has(b.twins)) fail(['byzantine', i, 'twins'], `${b.twins} already has a twin`);
      twinned.add(b.twins);
    } else {
      known(['byzantine', i, 'node'], b.node);
      group(['byzantine', i, 'group'], b.group);
      const g = s.groups.find((x) => x.id === b.group);
      if (g && g.consensus !== 'pbft') fail(['byzantine', i, 'behaviour'], `byzantine behaviours exist for PBFT groups only; group ${b.group} runs ${g.consensus}`);
      if (b.from !== undefined && b.until !== undefined && durationMs(b.until) <= durationMs(b.from)) fail(['byzantine', i, 'until'], 'must be later than from');
    }
  });
}
