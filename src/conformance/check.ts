import type { ConformanceContext } from './conformance-context.js';

export type CheckArea = 'envelope' | 'lenient' | 'queries' | 'variant' | 'errors' | 'lifecycle';
export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  readonly name: string;
  readonly area: CheckArea;
  readonly status: CheckStatus;
  /** Why it failed or was skipped; a short note on a pass. */
  readonly reason: string;
}

/**
 * One named check. `run` returns normally to pass (optionally with a note), throws
 * CheckFailure to fail, CheckSkipped to skip; any other exception is a failure with its message.
 */
export interface Check {
  readonly name: string;
  readonly area: CheckArea;
  run(ctx: ConformanceContext): Promise<string | void>;
}

export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

export function fail(reason: string): never {
  throw new CheckFailure(reason);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/** Fail with the listed problems, if any (at most three shown). */
export function expectNoProblems(problems: readonly string[]): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 3).join('; ');
  fail(problems.length > 3 ? `${shown}; and ${problems.length - 3} more` : shown);
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e.length > 80 ? `${e.slice(0, 77)}...` : e}, got ${a === undefined ? 'nothing' : a.length > 80 ? `${a.slice(0, 77)}...` : a}`);
}

export function check(area: CheckArea, name: string, run: (ctx: ConformanceContext) => Promise<string | void>): Check {
  return { area, name, run };
}
