import { durationMs } from '../scenario/scenario-loader.js';
import { actionOf, type ShrinkUnit } from './plan.js';

/** Virtual ms as seconds for people: 12.3 s. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** A value in one line, as a flow YAML reader would write it: `{ kinds: [pbft.commit], drop: true, for: 4s }`. */
export function compact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${compact(v)}`);
    return `{ ${parts.join(', ')} }`;
  }
  return String(value);
}

/** An action's value, short: a name or a list of names bare, anything else compact. */
function actionText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  if (value === true) return '';
  return compact(value);
}

/**
 * One line for an event: `crash node2 at 12.3 s, restart node2 at 15.1 s (swarm crash)`,
 * `node2 double-sign in group 1 from 3 s to 9.1 s`, `workload helloworld, rate 10`,
 * `network loss 0.046`. Kinds a later schema adds read as their key and compact value.
 */
export function describeUnit(unit: ShrinkUnit): string {
  switch (unit.section) {
    case 'network':
      return `network ${unit.key} ${compact(unit.value)}`;
    case 'links':
      return `link ${compact(unit.items[0]!.value)}`;
    case 'workloads': {
      const { kind, ...rest } = unit.items[0]!.value as { kind: string } & Record<string, unknown>;
      const { recording: _r, ...shown } = rest;
      return `workload ${kind} ${compact(shown)}`;
    }
    case 'byzantine': {
      const b = unit.items[0]!.value;
      if ('twins' in b) return `${b.twins} twinned (${b.twins}-twin has its identity)`;
      const window = `${b.from === undefined ? 'from the start' : `from ${seconds(durationMs(b.from))}`}${b.until === undefined ? ' to the end' : ` to ${seconds(durationMs(b.until))}`}`;
      const mutate = b.mutations !== undefined || b.rate !== undefined ? ` (${b.mutations ? b.mutations.join(', ') : 'default mutations'}${b.rate !== undefined ? ` at rate ${b.rate}` : ''})` : '';
      return `byzantine ${b.node} ${b.behaviour}${b.variant ? ` (${b.variant})` : ''}${mutate} in group ${b.group} ${window}`;
    }
    case 'timeline': {
      const sorted = [...unit.items].sort((a, b) => durationMs(a.value.at) - durationMs(b.value.at) || a.order - b.order);
      const labels = [...new Set(sorted.flatMap((p) => (p.value.label === undefined ? [] : [p.value.label])))];
      const steps = sorted.map((p) => {
        const action = actionOf(p.value);
        const text = actionText((p.value as Record<string, unknown>)[action]);
        return `${action}${text === '' ? '' : ` ${text}`} at ${seconds(durationMs(p.value.at))}`;
      });
      return `${steps.join(', ')}${labels.length > 0 ? ` (${labels.join('; ')})` : ''}`;
    }
  }
}
