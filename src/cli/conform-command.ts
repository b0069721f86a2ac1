import { writeFile } from 'node:fs/promises';
import { EndpointUnreachableError, formatReport, NotAFiscoNodeError, reportJson, runConformance } from '../conformance/index.js';
import { CliError } from './cli-error.js';
import { endpoint } from './endpoint.js';
import { checkOutputFile } from './output-path.js';
import type { CliIo } from './io.js';
import { integerOption, oneOf, parseOptions } from './parse-options.js';

/** twinchain conform <url>: exit 0 all passed, 1 any failure, 2 unreachable endpoint or bad usage. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    group: { type: 'string' },
    variant: { type: 'string' },
    json: { type: 'string' },
    'removed-group': { type: 'string' },
    timeout: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one endpoint URL, got ${positionals.length}`);
  const url = endpoint(positionals[0]!);
  const variant = oneOf(values.variant, ['earlier', 'later'] as const, 'variant');
  const groupId = integerOption(values.group, 'group', 1, 1);
  const removedGroup = values['removed-group'] === undefined ? undefined : integerOption(values['removed-group'], 'removed-group', 0, 1);
  const timeoutSeconds = integerOption(values.timeout, 'timeout', 30, 1);
  // a bad --json path is known before the checks run, not after them
  if (values.json !== undefined) await checkOutputFile(values.json);
  let report;
  try {
    report = await runConformance({
      url,
      groupId,
      ...(variant ? { variant } : {}),
      ...(removedGroup === undefined ? {} : { removedGroup }),
      inclusionTimeoutMs: timeoutSeconds * 1000,
    });
  } catch (e) {
    if (e instanceof EndpointUnreachableError) throw new CliError(`cannot reach the endpoint: ${e.message}`, 2);
    if (e instanceof NotAFiscoNodeError) throw new CliError(e.message, 2);
    throw e;
  }
  io.out(formatReport(report));
  if (values.json !== undefined) {
    await writeFile(values.json, reportJson(report));
    io.out(`results written to ${values.json}`);
  }
  return report.failed === 0 ? 0 : 1;
}
