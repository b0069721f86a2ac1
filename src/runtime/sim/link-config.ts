import { SimulationError } from './simulation-error.js';

/** How long a message takes on a link, before jitter. */
export type LatencyModel =
  | { readonly kind: 'constant'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  /** `minMs` plus an exponential tail, so that the mean is `meanMs` (TigerBeetle's exp(min, mean)). */
  | { readonly kind: 'exponential'; readonly minMs: number; readonly meanMs: number }
  /** Normal, clamped below at `minMs` (default 0). */
  | { readonly kind: 'normal'; readonly meanMs: number; readonly stdDevMs: number; readonly minMs?: number };

/**
 * The behaviour of one directed link. A link is FIFO like the TCP connection it stands for:
 * jitter never reorders, only `reorderRate` does.
 */
export interface LinkConfig {
  readonly latency: LatencyModel;
  /** Extra delay drawn uniformly from [0, jitterMs). */
  readonly jitterMs: number;
  /** Probability in [0, 1] that a message is lost. */
  readonly lossRate: number;
  /** Probability in [0, 1] that a message is delivered twice (the copy has its own latency). */
  readonly duplicateRate: number;
  /** Probability in [0, 1] that a message leaves the FIFO order, delayed by up to `reorderDelayMs`. */
  readonly reorderRate: number;
  readonly reorderDelayMs: number;
  /** Most messages in flight on the link; more are dropped ("queue-full"). null: unbounded. */
  readonly queueCapacity: number | null;
}

export const defaultLinkConfig: LinkConfig = Object.freeze({
  latency: Object.freeze({ kind: 'uniform', minMs: 1, maxMs: 5 }),
  jitterMs: 0,
  lossRate: 0,
  duplicateRate: 0,
  reorderRate: 0,
  reorderDelayMs: 20,
  queueCapacity: null,
});

const KEYS = new Set<string>(Object.keys(defaultLinkConfig));

/** `base` with `patch` applied, after checking every patched value; `where` prefixes error messages. */
export function patchLinkConfig(base: LinkConfig, patch: Partial<LinkConfig>, where: string): LinkConfig {
  if (typeof patch !== 'object' || patch === null) throw new SimulationError(`${where}: link settings must be an object`);
  for (const key of Object.keys(patch)) {
    if (!KEYS.has(key)) throw new SimulationError(`${where}: unknown link setting "${key}" (known: ${[...KEYS].join(', ')})`);
  }
  const merged = { ...base, ...stripUndefined(patch) };
  checkLatency(merged.latency, where);
  checkNonNegative(merged.jitterMs, 'jitterMs', where);
  checkRate(merged.lossRate, 'lossRate', where);
  checkRate(merged.duplicateRate, 'duplicateRate', where);
  checkRate(merged.reorderRate, 'reorderRate', where);
  checkNonNegative(merged.reorderDelayMs, 'reorderDelayMs', where);
  if (merged.queueCapacity !== null && (!Number.isSafeInteger(merged.queueCapacity) || merged.queueCapacity < 1)) {
    throw new SimulationError(`${where}: queueCapacity must be a positive integer or null (got ${String(merged.queueCapacity)})`);
  }
  return Object.freeze({ ...merged, latency: Object.freeze({ ...merged.latency }) });
}

/** Latency in whole microseconds from two uniform draws in [0, 1). */
export function sampleLatencyUs(model: LatencyModel, u1: number, u2: number): number {
  let ms: number;
  switch (model.kind) {
    case 'constant':
      ms = model.ms;
      break;
    case 'uniform':
      ms = model.minMs + u1 * (model.maxMs - model.minMs);
      break;
    case 'exponential':
      ms = model.minMs - Math.log(1 - u1) * (model.meanMs - model.minMs);
      break;
    case 'normal': {
      // Box-Muller; 1 - u1 is in (0, 1], so the log is finite
      const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
      ms = Math.max(model.minMs ?? 0, model.meanMs + z * model.stdDevMs);
      break;
    }
  }
  return Math.round(ms * 1000);
}

function stripUndefined(patch: Partial<LinkConfig>): Partial<LinkConfig> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<LinkConfig>;
}

function checkLatency(model: LatencyModel, where: string): void {
  const at = `${where}: latency`;
  if (typeof model !== 'object' || model === null) throw new SimulationError(`${at} must be an object with a "kind"`);
  const fields = (names: string[]) => {
    const allowed = new Set(['kind', ...names]);
    for (const key of Object.keys(model)) {
      if (!allowed.has(key)) throw new SimulationError(`${at}: unknown field "${key}" for kind "${model.kind}" (known: ${names.join(', ')})`);
    }
  };
  switch (model.kind) {
    case 'constant':
      fields(['ms']);
      checkNonNegative(model.ms, 'latency.ms', where);
      return;
    case 'uniform':
      fields(['minMs', 'maxMs']);
      checkNonNegative(model.minMs, 'latency.minMs', where);
      checkNonNegative(model.maxMs, 'latency.maxMs', where);
      if (model.maxMs < model.minMs) throw new SimulationError(`${at}: maxMs (${model.maxMs}) is below minMs (${model.minMs})`);
      return;
    case 'exponential':
      fields(['minMs', 'meanMs']);
      checkNonNegative(model.minMs, 'latency.minMs', where);
      checkNonNegative(model.meanMs, 'latency.meanMs', where);
      if (model.meanMs < model.minMs) throw new SimulationError(`${at}: meanMs (${model.meanMs}) is below minMs (${model.minMs})`);
      return;
    case 'normal':
      fields(['meanMs', 'stdDevMs', 'minMs']);
      checkNonNegative(model.meanMs, 'latency.meanMs', where);
      checkNonNegative(model.stdDevMs, 'latency.stdDevMs', where);
      if (model.minMs !== undefined) checkNonNegative(model.minMs, 'latency.minMs', where);
      return;
    default:
      throw new SimulationError(
        `${at}: kind must be constant, uniform, exponential or normal (got ${JSON.stringify((model as { kind: unknown }).kind)})`,
      );
  }
}

function checkNonNegative(value: unknown, name: string, where: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new SimulationError(`${where}: ${name} must be a finite number ≥ 0 (got ${String(value)})`);
  }
}

function checkRate(value: unknown, name: string, where: string): void {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new SimulationError(`${where}: ${name} must be a number in [0, 1] (got ${String(value)})`);
  }
}
