import { writeFile } from 'node:fs/promises';
import { RecordingError, RecordingReader, replayRecording, ReplayInputError, type ReplayProgress, type ReplayReport } from '../replay/index.js';
import { CliError } from './cli-error.js';
import { checkOutputFile } from './output-path.js';
import type { CliIo } from './io.js';
import { integerOption, parseOptions } from './parse-options.js';

const number = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The one-line summary of a passing run. */
export function summaryLine(report: ReplayReport): string {
  const rate = (count: number) => (report.seconds > 0 ? count / report.seconds : 0);
  const range = report.blocks === 0 ? 'no blocks' : `blocks ${report.firstBlock}–${report.lastBlock}`;
  return (
    `replay ${report.file}: PASS, ${number(report.blocks)} blocks (${range}), ${number(report.transactions)} transactions in ${number(report.seconds, 2)} s ` +
    `(${number(rate(report.blocks), 1)} blocks/s, ${number(rate(report.transactions), 1)} tx/s; executing ${number(report.executionSeconds, 2)} s of it); every check matched` +
    (report.skipped.length > 0 ? `, ${report.skipped.length} skipped (below)` : '')
  );
}

function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters; all of it in --json)`;
}

/** The divergence, several lines. */
export function divergenceLines(report: ReplayReport): string[] {
  const d = report.divergence!;
  const where = d.block === 0 ? 'block 0 (genesis)' : `block ${d.block}${d.index === undefined ? '' : `, ${d.field.startsWith('signatureList') ? 'signature' : 'transaction'} ${d.index}`}`;
  const lines = [
    `replay ${report.file}: DIVERGENCE at ${where}: ${d.field}`,
    `  recorded:     ${clip(d.recorded)}`,
    `  re-executed:  ${clip(d.replayed)}`,
  ];
  if (d.call) lines.push(`  call:         ${d.call}`);
  if (d.detail) lines.push(`  note:         ${d.detail}`);
  lines.push(
    report.blocks > 0
      ? `  ${report.blocks === 1 ? `block ${report.firstBlock}` : `blocks ${report.firstBlock}–${report.lastBlock}`} matched before it (${number(report.transactions)} transaction${report.transactions === 1 ? '' : 's'}, ${number(report.seconds, 2)} s)`
      : '  no block matched before it',
  );
  return lines;
}

function skippedLines(report: ReplayReport): string[] {
  return report.skipped.map((s) => `  skipped: ${s.check} (${s.count}× from block ${s.firstBlock}): ${s.reason}`);
}

/** Count the recording's block lines, for the progress bar's total (a TTY only). */
async function countBlocks(file: string, to: number | undefined): Promise<number | undefined> {
  try {
    const reader = await RecordingReader.open(file);
    let last = reader.header.from - 1;
    for await (const b of reader.blocks()) {
      last = b.number;
      if (to !== undefined && last >= to) break;
    }
    return last - reader.header.from + 1;
  } catch {
    return undefined; // the replay itself reports what is wrong
  }
}

function progressBar(total: number | undefined) {
  return (p: ReplayProgress) => {
    const rate = p.elapsedMs > 0 ? (p.transactions * 1000) / p.elapsedMs : 0;
    const width = 30;
    const bar =
      total && total > 0
        ? `[${'#'.repeat(Math.round((p.blocks / total) * width)).padEnd(width, '.')}] ${number(p.blocks)}/${number(total)} blocks`
        : `${number(p.blocks)} blocks`;
    process.stderr.write(`\r${bar}, block ${p.block}, ${number(p.transactions)} tx, ${number(rate, 0)} tx/s\x1b[K`);
  };
}

/** What replayed before a recording error stopped the replay, as a suffix for its message. */
function matchedBefore(matched: { first: number; last: number } | undefined): string {
  if (!matched) return '';
  const blocks = matched.first === matched.last ? `block ${matched.first}` : `blocks ${matched.first}–${matched.last}`;
  return ` (${blocks} replayed and matched the recording before it)`;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { to: { type: 'string' }, json: { type: 'string' } });
  if (positionals.length !== 1) throw new CliError(`expected one recording file, got ${positionals.length}`);
  const file = positionals[0]!;
  const to = values.to === undefined ? undefined : integerOption(values.to, 'to', 0, 1);
  // a bad --json path is known before the replay, not after it
  if (values.json !== undefined) await checkOutputFile(values.json);
  const tty = Boolean(process.stderr.isTTY);
  const total = tty ? await countBlocks(file, to) : undefined;
  const bar = tty ? progressBar(total) : undefined;
  // the blocks that matched before a bad line, said with its error
  let matched: { first: number; last: number } | undefined;
  const onProgress = (p: ReplayProgress) => {
    matched = { first: matched?.first ?? p.block, last: p.block };
    bar?.(p);
  };
  let report: ReplayReport;
  try {
    report = await replayRecording(file, { prioritize: io.ownsProcess === true, ...(to === undefined ? {} : { to }), onProgress });
  } catch (e) {
    if (e instanceof RecordingError || e instanceof ReplayInputError) throw new CliError(`${e.message}${matchedBefore(matched)}`);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`${file}: no such file`);
    throw e;
  } finally {
    if (tty) process.stderr.write('\r\x1b[K');
  }
  if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  if (report.divergence) {
    for (const line of divergenceLines(report)) io.out(line);
    for (const line of skippedLines(report)) io.out(line);
    return 1;
  }
  io.out(summaryLine(report));
  // --to past the recording's end: every block there is replayed, and that it ends sooner is said
  if (to !== undefined && report.lastBlock < to) io.out(`  the recording ends at block ${report.lastBlock}, before --to ${to}`);
  for (const line of skippedLines(report)) io.out(line);
  return 0;
}
