import type { ConformanceReport } from './run-conformance.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;

/** The interface reference the checks follow (in the repository and in the package). */
const REFERENCE = 'docs/json-rpc.md in the Twinchain package';

function clip(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > width ? `${line.slice(0, width - 3)}...` : line;
}

/** The pass/fail table `twinchain conform` prints. */
export function formatReport(report: ConformanceReport): string {
  const head = [
    `conformance of ${report.url}, group ${report.groupId}`,
    `node ${report.nodeVersion ?? '(version unknown)'}; ${report.variant} interface variant (${report.variantSource}); ${report.consensus.toUpperCase()}; ${report.suite === 'sm' ? 'SM2/SM3' : 'ECDSA'} transactions`,
    `what the checks expect: ${REFERENCE}`,
    '',
  ];
  const width = Math.max(...report.results.map((r) => r.name.length));
  const rows = report.results.map((r) => `${LABEL[r.status].padEnd(6)}  ${r.area.padEnd(9)}  ${r.name.padEnd(width)}  ${clip(r.reason, 140)}`.trimEnd());
  const total = report.results.length;
  const summary = `${total} checks: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`;
  return [...head, `${'result'}  ${'area'.padEnd(9)}  ${'check'.padEnd(width)}  detail`, ...rows, '', summary].join('\n');
}

/** What `--json` writes. */
export function reportJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
