export {
  runConformance,
  ALL_CHECKS,
  EndpointUnreachableError,
  NotAFiscoNodeError,
  type ConformanceOptions,
  type ConformanceReport,
} from './run-conformance.js';
export { formatReport, reportJson } from './report.js';
export type { Check, CheckArea, CheckResult, CheckStatus } from './check.js';
