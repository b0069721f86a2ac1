import type { ConformanceReport } from './run-conformance.js';

/** The interface variants, consensus, supported_version and suite every conformance target is checked in. */
export const CONFORMANCE_CASES = [
  ['later', 'pbft', '2.11.0', 'ecdsa'],
  ['earlier', 'pbft', '2.0.0-rc1', 'ecdsa'],
  ['later', 'raft', '2.11.0', 'ecdsa'],
  ['earlier', 'raft', '2.0.0-rc1', 'ecdsa'],
  ['later', 'pbft', '2.4.0', 'sm'],
] as const;

/** A report's failed checks, one line each. */
export function failedChecks(report: ConformanceReport): string[] {
  return report.results.filter((r) => r.status === 'fail').map((r) => `${r.name}: ${r.reason}`);
}
