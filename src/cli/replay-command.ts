import { stat, writeFile } from 'node:fs/promises';
import { ALLOWABLE_MISSING, RecordingError, RecordingReader, replayRecording, ReplayInputError, type LaterVariantField, type ReplayProgress, type ReplayReport } from '../replay/index.js';
import { CliError } from './cli-error.js';
import { checkOutputFile, fileSystemReason } from './output-path.js';
import type { CliIo } from './io.js';
import { integerOption, parseOptions } from './parse-options.js';
import { PLAIN_EVERY_MS, plainProgressLine, progressText, terminalBar } from './progress-text.js';

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
  const allowed = report.allowMissing.length > 0 ? [`  allowed to be missing (--allow-missing): ${report.allowMissing.join(', ')}`] : [];
  return [...allowed, ...report.skipped.map((s) => `  skipped: ${s.check} (${s.count}× from block ${s.firstBlock}): ${s.reason}`)];
}

/** --allow-missing values (repeated, or comma-separated): later-variant field names. */
function allowMissingOption(values: readonly string[] | undefined): LaterVariantField[] {
  const fields = (values ?? []).flatMap((v) => v.split(',')).map((f) => f.trim()).filter((f) => f !== '');
  for (const field of fields) {
    if (!(ALLOWABLE_MISSING as readonly string[]).includes(field)) {
      throw new CliError(`--allow-missing takes a field the later interface variant carries: ${ALLOWABLE_MISSING.join(', ')} (got "${field}")`);
    }
  }
  return [...new Set(fields)] as LaterVariantField[];
}

/** The recording's block lines up to --to, for the progress total: read, not parsed; undefined where it cannot be read (the replay then says why). */
async function countBlocks(file: string, to: number | undefined): Promise<number | undefined> {
  try {
    const reader = await RecordingReader.open(file);
    const last = to ?? Number.POSITIVE_INFINITY;
    let count = 0;
    for await (const _line of reader.rawBlockLines()) {
      if (reader.header.from + count > last) break;
      count++;
    }
    return count;
  } catch {
    return undefined;
  }
}

/** What the command takes from the process; tests pass their own. */
export interface ReplayDeps {
  /** A progress bar redrawn in place (default: on stderr when it is a terminal); otherwise plain lines every 5 s via io.err. */
  readonly bar?: ((text: string) => void) | undefined;
  readonly now?: () => number;
}

/** What replayed before a recording error stopped the replay, as a suffix for its message. */
function matchedBefore(matched: { first: number; last: number } | undefined): string {
  if (!matched) return '';
  const blocks = matched.first === matched.last ? `block ${matched.first}` : `blocks ${matched.first}–${matched.last}`;
  return ` (${blocks} replayed and matched the recording before it)`;
}

/** Whether two paths name one file (through links too); false where either does not exist. */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

export async function run(args: string[], io: CliIo, deps: ReplayDeps = {}): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    to: { type: 'string' },
    json: { type: 'string' },
    quiet: { type: 'boolean' },
    'allow-missing': { type: 'string', multiple: true },
  });
  if (positionals.length !== 1) throw new CliError(`expected one recording file, got ${positionals.length}`);
  const file = positionals[0]!;
  const to = values.to === undefined ? undefined : integerOption(values.to, 'to', 0, 1);
  const allowMissing = allowMissingOption(values['allow-missing']);
  // a bad --json path is known before the replay, not after it
  if (values.json !== undefined) {
    await checkOutputFile(values.json);
    if (await sameFile(values.json, file)) throw new CliError(`--json ${values.json} is the recording itself; the report would overwrite it: pick another file`);
  }
  const quiet = values.quiet === true;
  const bar = quiet ? undefined : 'bar' in deps ? deps.bar : terminalBar();
  const now = deps.now ?? (() => performance.now());
  // the total for the bar and the ETA: one pass over the file, inflated but not parsed, before the replay
  const total = quiet ? undefined : await countBlocks(file, to);
  let lastPlain = now();
  let barShown = false;
  // the blocks that matched before a bad line, said with its error
  let matched: { first: number; last: number } | undefined;
  const onProgress = (p: ReplayProgress) => {
    matched = { first: matched?.first ?? p.block, last: p.block };
    if (total === undefined) return;
    const blocksPerSecond = p.elapsedMs > 0 ? (p.blocks * 1000) / p.elapsedMs : 0;
    const text = progressText({ blocks: p.blocks, total, transactions: p.transactions, blocksPerSecond, etaSeconds: blocksPerSecond > 0 ? Math.max(0, total - p.blocks) / blocksPerSecond : undefined });
    if (bar) {
      bar(text);
      barShown = true;
    } else if (now() - lastPlain >= PLAIN_EVERY_MS) {
      lastPlain = now();
      io.err(plainProgressLine('replayed', text));
    }
  };
  let report: ReplayReport;
  try {
    report = await replayRecording(file, { ...(to === undefined ? {} : { to }), allowMissing, onProgress });
  } catch (e) {
    if (e instanceof RecordingError || e instanceof ReplayInputError) throw new CliError(`${e.message}${matchedBefore(matched)}`);
    const errno = e as NodeJS.ErrnoException;
    if (errno.code === 'ENOENT') throw new CliError(`${file}: no such file`);
    if (typeof errno.code === 'string' && typeof errno.syscall === 'string') throw new CliError(`${file}: cannot read it: ${fileSystemReason(errno, file)}`);
    throw e;
  } finally {
    if (bar && barShown) bar('');
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
