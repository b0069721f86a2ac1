import { Document, isMap, isSeq, parse } from 'yaml';
import { ACTION_KEYS, type Scenario, type TimelineEntry, type Workload } from '../scenario/scenario-schema.js';

export interface ScenarioYamlOptions {
  /** Comment lines at the top of the file. */
  readonly comment?: string;
  /** A replay workload's recording path as the written file should name it (default: unchanged). */
  readonly recordingPath?: (file: string) => string;
}

/** A timeline entry with `at` first, then its action, then its label (the order people read it in). */
function orderedEntry(entry: TimelineEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { at: entry.at };
  const actions = new Set<string>(ACTION_KEYS);
  for (const [k, v] of Object.entries(entry)) if (actions.has(k) && v !== undefined) out[k] = v;
  // keys a later version adds to the schema, besides at and label, keep their place after the action
  for (const [k, v] of Object.entries(entry)) if (!(k in out) && k !== 'label' && v !== undefined) out[k] = v;
  if (entry.label !== undefined) out.label = entry.label;
  return out;
}

function plainWorkload(w: Workload, recordingPath: (file: string) => string): Record<string, unknown> {
  const { recording: _recording, ...rest } = w as Workload & { recording?: unknown };
  return rest.kind === 'replay' ? { ...rest, file: recordingPath((rest as { file: string }).file) } : rest;
}

/**
 * A scenario as a standalone YAML file: every key written out (defaults included, so the file
 * does not depend on them), no swarm section (its draws are already in the timeline and the
 * byzantine list), one line per timeline entry, byzantine entry, workload, link and group.
 * parseScenario of the text gives the scenario back.
 */
export function scenarioYaml(scenario: Scenario, options: ScenarioYamlOptions = {}): string {
  const recordingPath = options.recordingPath ?? ((f: string) => f);
  const { swarm: _swarm, ...rest } = scenario;
  const plain = {
    name: rest.name,
    ...(rest.description !== undefined ? { description: rest.description } : {}),
    seed: rest.seed,
    duration: rest.duration,
    chain: rest.chain,
    groups: rest.groups,
    network: rest.network,
    workloads: rest.workloads.map((w) => plainWorkload(w, recordingPath)),
    timeline: rest.timeline.map(orderedEntry),
    byzantine: rest.byzantine,
    expect: rest.expect,
  };
  const doc = new Document(JSON.parse(JSON.stringify(plain)) as unknown);
  // one line per list item, as the scenario library writes them
  for (const path of [['groups'], ['workloads'], ['timeline'], ['byzantine'], ['network', 'links']]) {
    const seq = doc.getIn(path, true);
    if (!isSeq(seq)) continue;
    for (const item of seq.items) if (isMap(item)) item.flow = true;
  }
  const chain = doc.get('chain', true);
  if (isMap(chain)) chain.flow = true;
  if (options.comment) doc.commentBefore = options.comment.split('\n').map((l) => ` ${l}`).join('\n');
  const padded = doc.toString({ lineWidth: 0, flowCollectionPadding: true });
  // `{ at: 5s, crash: [node1] }` as the scenario library writes it: no padding inside brackets
  const tight = tightenBrackets(padded);
  // without quoted scalars the brackets are all structure; with some, make sure nothing moved
  return !/['"]/.test(padded) || sameDocument(tight, padded) ? tight : padded;
}

/** `[ a, b ]` → `[a, b]` outside quoted scalars. */
function tightenBrackets(text: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      out += c;
      if (quote === '"' && c === '\\') out += text[++i] ?? '';
      else if (c === quote) {
        if (quote === "'" && text[i + 1] === "'") out += text[++i];
        else quote = undefined;
      }
      continue;
    }
    const before = text[i - 1];
    if ((c === '"' || c === "'") && (before === undefined || /[\s[{,:]/.test(before))) quote = c;
    if (c === '[' && text[i + 1] === ' ') {
      out += '[';
      i++;
      continue;
    }
    if (c === ' ' && text[i + 1] === ']') continue;
    out += c;
  }
  return out;
}

function sameDocument(a: string, b: string): boolean {
  try {
    return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
  } catch {
    return false;
  }
}
