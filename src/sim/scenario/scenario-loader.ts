import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { GENESIS_DEFAULTS, ProtocolVersion } from '../../chain/index.js';
import { fileSystemWords } from '../../runtime/index.js';
import { readRecordedTraffic, RecordingError, type RecordedTraffic } from '../../replay/index.js';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { checkScenario, closest, MAX_PLANNED_TRANSACTIONS, type Fail, type Path } from './scenario-checks.js';
import { scenarioSchema, type ReplayWorkload, type Scenario } from './scenario-schema.js';


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

/** Reads, parses and checks a scenario file, and reads the files it names (replay recordings). */
export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ScenarioError(file, 1, 1, '', `cannot read the file: ${fileSystemWords(e as NodeJS.ErrnoException)}`);
  }
  return loadScenario(text, file);
}

/**
 * parseScenario, then the files the scenario names are read (paths relative to `file`): each
 * replay workload's recording. A problem is a ScenarioError at the workload's key, with the
 * recording's own file:line message where it has one.
 */
export async function loadScenario(text: string, file = '<scenario>'): Promise<Scenario> {
  const { scenario, fail } = parseScenarioWith(text, file);
  for (const [i, w] of scenario.workloads.entries()) {
    if (w.kind === 'replay') w.recording = await readRecording(scenario, w, i, path.resolve(path.dirname(file), w.file), fail);
  }
  return scenario;
}

/** The chain id of every simulated node (src/node's default). */
const SIM_CHAIN_ID = 1n;

async function readRecording(scenario: Scenario, w: ReplayWorkload, i: number, resolved: string, fail: Fail): Promise<RecordedTraffic> {
  const at: Path = ['workloads', i, 'file'];
  try {
    const info = await stat(resolved);
    if (!info.isFile()) fail(at, `${resolved} is not a file`);
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    fail(at, `the recording ${JSON.stringify(w.file)} cannot be read (looked for ${resolved}, relative to the scenario file): ${fileSystemWords(e as NodeJS.ErrnoException)}`);
  }
  let traffic: RecordedTraffic;
  try {
    traffic = await readRecordedTraffic(resolved);
  } catch (e) {
    if (e instanceof RecordingError) fail(at, `cannot replay the recording: ${e.message}`);
    throw e;
  }
  if (traffic.transactions > MAX_PLANNED_TRANSACTIONS) fail(at, `the recording holds ${traffic.transactions} transactions, above the limit of ${MAX_PLANNED_TRANSACTIONS} workload transactions per run`);
  // the simulated group must take the transactions as they are
  if (traffic.suite !== scenario.chain.suite) {
    fail(at, `the recording is of an ${traffic.suite} chain, its signatures do not verify on this ${scenario.chain.suite} chain; set chain.suite: ${traffic.suite}`);
  }
  const recordedVersion = ProtocolVersion.parse(traffic.supportedVersion);
  const version = ProtocolVersion.parse(scenario.chain.supportedVersion);
  if (recordedVersion.txGeneration !== version.txGeneration) {
    fail(at, `the recording's transactions are ${recordedVersion.txGeneration} encoded (supported version ${traffic.supportedVersion}); this chain's ${scenario.chain.supportedVersion} takes ${version.txGeneration} only: set chain.supportedVersion: ${traffic.supportedVersion}`);
  }
  for (const block of traffic.blocks) {
    for (const t of block.transactions) {
      const where = `${traffic.file}:${t.line}: block ${t.block}, transaction ${t.index} (${t.hash})`;
      if (t.groupId !== undefined && t.groupId !== BigInt(w.group)) fail(['workloads', i, 'group'], `${where} is for group ${t.groupId}; this workload sends to group ${w.group}, whose nodes would refuse it: set group: ${t.groupId}`);
      if (t.chainId !== undefined && t.chainId !== SIM_CHAIN_ID) fail(at, `${where} has chainId ${t.chainId}; the simulated chain's is ${SIM_CHAIN_ID}, its nodes would refuse it`);
    }
  }
  if (w.expect === 'same-receipts') {
    // the receipts are those of an equivalent genesis only
    const g = scenario.groups.find((x) => x.id === w.group);
    const problems: string[] = [];
    if (traffic.supportedVersion !== scenario.chain.supportedVersion) problems.push(`supported version ${traffic.supportedVersion} (chain.supportedVersion is ${scenario.chain.supportedVersion})`);
    const state = g?.state ?? 'storage';
    if (traffic.stateType !== undefined && traffic.stateType !== state) problems.push(`state ${traffic.stateType} (group ${w.group}'s is ${state})`);
    const gasLimit = String(g?.txGasLimit ?? GENESIS_DEFAULTS.txGasLimit);
    if (traffic.txGasLimit !== undefined && BigInt(traffic.txGasLimit) !== BigInt(gasLimit)) problems.push(`txGasLimit ${BigInt(traffic.txGasLimit)} (group ${w.group}'s is ${gasLimit})`);
    if (problems.length > 0) fail(['workloads', i, 'expect'], `same-receipts needs a genesis equivalent to the recorded chain's, which has ${problems.join(', ')}`);
  }
  return traffic;
}

/** Parse and check a scenario; every problem becomes a ScenarioError pointing into the text. Files it names are not read (see loadScenario). */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  return parseScenarioWith(text, file).scenario;
}

function parseScenarioWith(text: string, file: string): { scenario: Scenario; fail: Fail } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const pos = lines.linePos(error.pos[0]);
    throw new ScenarioError(file, pos.line, pos.col, '', `YAML: ${error.message.split('\n')[0]}`);
  }
  /** Reports at the value of `path`, or at its key (an unknown key), or at the nearest parent that exists (a missing key). */
  const report = (path: Path, detail: string, atKey = false): never => {
    const node = nodeAt(doc, path, atKey);
    const pos = lines.linePos(node?.range?.[0] ?? 0);
    throw new ScenarioError(file, pos.line, pos.col, pathText(path), detail);
  };
  const fail: Fail = (path, detail) => report(path, detail);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (e) {
    return fail([], `YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail([], 'a scenario is a mapping of keys (name, duration, chain, ...)');
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = mostSpecific(parsed.error.issues);
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      const hint = closest(key, knownKeys(scenarioSchema, path));
      // the nearest key may be set already (both "sealer" and "sealers"): still the likely intent, said so
      const present = hint !== undefined && presentKeys(raw, path).includes(hint);
      const where = present ? keyLine(doc, lines, [...path, hint]) : undefined;
      const said = hint === undefined ? '' : present ? ` (did you mean "${hint}"? it is already set${where ? ` on line ${where}` : ''}: remove one of the two)` : ` (did you mean "${hint}"?)`;
      return report([...path, key], `unknown key "${key}"${said}`, true);
    }
    return fail(path, describeIssue(issue, path, raw));
  }
  checkScenario(parsed.data, fail);
  return { scenario: parsed.data, fail };
}

/** `byzantine[0].from` */
function pathText(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
}

/** The value at `path` of the parsed YAML, and whether its parent is a mapping without that key. */
function valueAt(raw: unknown, path: Path): { value: unknown; missingKey: boolean } {
  let value = raw;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (value === null || typeof value !== 'object') return { value: undefined, missingKey: false };
    const isMapping = !Array.isArray(value);
    if (isMapping && !Object.prototype.hasOwnProperty.call(value, key)) return { value: undefined, missingKey: i === path.length - 1 };
    value = (value as Record<string | number, unknown>)[key];
  }
  return { value, missingKey: false };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/** A zod issue in the file's terms: missing keys by name, wrong values with what was given. */
function describeIssue(issue: z.core.$ZodIssue, path: Path, raw: unknown): string {
  const { value, missingKey } = valueAt(raw, path);
  const key = path[path.length - 1];
  if (missingKey && typeof key === 'string') {
    if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
      return `missing required key "${key}" (one of ${(issue.options as unknown[]).map(String).join(', ')})`;
    }
    return `missing required key "${key}"`;
  }
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    const options = (issue.options as unknown[]).map(String);
    const hint = typeof value === 'string' ? closest(value, options) : undefined;
    return `expected one of ${options.join(', ')}, got ${describeValue(value)}${hint ? ` (did you mean "${hint}"?)` : ''}`;
  }
  if (issue.code === 'invalid_value' && typeof value === 'string') {
    const options = issue.values.map(String);
    const hint = closest(value, options);
    if (hint) return `${issue.message}, got ${describeValue(value)} (did you mean "${hint}"?)`;
  }
  if (issue.code === 'invalid_type' || issue.code === 'too_big' || issue.code === 'too_small' || issue.code === 'invalid_value') {
    if (value !== undefined && (typeof value !== 'object' || value === null)) return `${inOurWords(issue)}, got ${describeValue(value)}`;
  }
  return inOurWords(issue);
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  int: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  tuple: 'a list',
};

/** zod's default wording ("Too big: expected number to be <=300") in ours ("at most 300"); a schema's own message as it is. */
function inOurWords(issue: z.core.$ZodIssue): string {
  if (!/^(Too big|Too small|Invalid input):/.test(issue.message)) return issue.message;
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    const big = issue.code === 'too_big';
    const limit = Number(big ? issue.maximum : issue.minimum);
    const exact = issue.inclusive !== false;
    const bound = big ? (exact ? 'at most' : 'less than') : exact ? 'at least' : 'more than';
    const unit = issue.origin === 'array' || issue.origin === 'set' ? (limit === 1 ? ' item' : ' items') : issue.origin === 'string' ? (limit === 1 ? ' character' : ' characters') : '';
    return `expected ${bound} ${limit}${unit}`;
  }
  if (issue.code === 'invalid_type') return `expected ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
  return issue.message;
}

function mostSpecific(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  // union failures report one issue per branch; the deepest path points closest to the mistake
  const flat: z.core.$ZodIssue[] = [];
  const walk = (list: readonly z.core.$ZodIssue[], prefix: PropertyKey[]) => {
    // of a union's branches, follow the one that went wrong in the fewest ways
    for (const issue of list) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length > 0) {
        const branch = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
        walk(branch, path);
      } else flat.push({ ...issue, path } as z.core.$ZodIssue);
    }
  };
  walk(issues, []);
  // an unknown key first: a misspelt key also shows up as a missing one
  const unknown = flat.find((i) => i.code === 'unrecognized_keys');
  if (unknown) return unknown;
  let best = flat[0]!;
  for (const issue of flat) if (issue.path.length > best.path.length) best = issue;
  return best;
}

/** Keys the schema allows in the mapping at `path` (every branch of a union), for "did you mean". */
function knownKeys(schema: z.ZodType, path: Path): string[] {
  const out = new Set<string>();
  const visit = (type: z.core.$ZodType, rest: Path) => {
    const def = type._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
        return visit(def.innerType as z.core.$ZodType, rest);
      case 'pipe':
        return visit(def.in as z.core.$ZodType, rest);
      case 'union':
        for (const option of def.options as z.core.$ZodType[]) visit(option, rest);
        return;
      case 'array':
        if (typeof rest[0] === 'number') visit(def.element as z.core.$ZodType, rest.slice(1));
        return;
      case 'tuple':
        if (typeof rest[0] === 'number') {
          const item = (def.items as z.core.$ZodType[])[rest[0]];
          if (item) visit(item, rest.slice(1));
        }
        return;
      case 'object': {
        const shape = def.shape as Record<string, z.core.$ZodType>;
        if (rest.length === 0) for (const k of Object.keys(shape)) out.add(k);
        else if (typeof rest[0] === 'string' && shape[rest[0]]) visit(shape[rest[0]], rest.slice(1));
        return;
      }
      default:
        return;
    }
  };
  visit(schema, path);
  return [...out];
}

/** The keys the mapping at `path` of the parsed YAML has. */
function presentKeys(raw: unknown, path: Path): string[] {
  const { value } = valueAt(raw, path);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

/** The line of the key at `path`, where the file has it. */
function keyLine(doc: Document, lines: LineCounter, path: Path): number | undefined {
  const node = nodeAt(doc, path, true);
  return node?.range ? lines.linePos(node.range[0]).line : undefined;
}

function nodeAt(doc: Document, path: Path, atKey: boolean) {
  if (atKey && path.length > 0) {
    const parent = doc.getIn(path.slice(0, -1) as (string | number)[], true);
    const key = path[path.length - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
      if (pair && isNode(pair.key)) return pair.key;
    }
  }
  const node = doc.getIn(path as (string | number)[], true);
  if (isNode(node)) return node;
  // a missing key: point at its parent
  for (let n = path.length - 1; n >= 0; n--) {
    const up = doc.getIn(path.slice(0, n) as (string | number)[], true);
    if (isNode(up)) return up;
  }
  return doc.contents;
}

/** Names of the nodes a scenario has: node0 … node{n-1}. */
export function nodeNames(scenario: Scenario): string[] {
  return Array.from({ length: scenario.chain.nodes }, (_, i) => `node${i}`);
}
