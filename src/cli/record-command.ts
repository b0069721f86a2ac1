import { RecordError, RecordStoppedError, RecordUsageError, record, type RecordProgress } from '../replay/index.js';
import type { FetchFunction } from '../rpc/index.js';
import { CliError } from './cli-error.js';
import { endpoint } from './endpoint.js';
import { checkOutputFile } from './output-path.js';
import type { CliIo } from './io.js';
import { integerOption, parseOptions } from './parse-options.js';
import { withStopSignal } from './signals.js';
import { PLAIN_EVERY_MS, plainProgressLine, progressText, terminalBar } from './progress-text.js';

/** What the command takes from the process; tests pass their own. */
export interface RecordDeps {
  readonly fetch?: FetchFunction;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  /** Resolves to stop cleanly (default: the first SIGINT or SIGTERM). */
  readonly until?: Promise<unknown>;
  /** A progress bar redrawn in place (default: on stderr when it is a terminal); otherwise plain lines every 5 s via io.err. */
  readonly bar?: ((text: string) => void) | undefined;
}

/** twinchain record <url>: exit 0 recorded, 1 the node failed or answered nonsense, 2 bad usage, 130 stopped by a signal. */
export function run(args: string[], io: CliIo, deps: RecordDeps = {}): Promise<number> {
  return withStopSignal(deps.until, (until) => recordCommand(args, io, deps, until));
}

async function recordCommand(args: string[], io: CliIo, deps: RecordDeps, until: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    group: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    quiet: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one endpoint URL, got ${positionals.length}`);
  const url = endpoint(positionals[0]!);
  const group = values.group === undefined ? undefined : integerOption(values.group, 'group', 1, 1);
  const from = values.from === undefined ? undefined : integerOption(values.from, 'from', 1, 1);
  const to = values.to === undefined || values.to === 'latest' ? 'latest' : integerOption(values.to, 'to', 0, 0);
  if (to !== 'latest' && to < (from ?? 1)) throw new CliError(`--to ${to} is before --from ${from ?? 1}`);
  const concurrency = integerOption(values.concurrency, 'concurrency', 8, 1, 64);
  const out = values.out ?? 'recording.jsonl';
  if (out === '') throw new CliError('--out must name a file');
  // before the node is asked anything (an existing recording is continued, so it may exist)
  await checkOutputFile(out);

  const quiet = values.quiet === true;
  const bar = quiet ? undefined : 'bar' in deps ? deps.bar : terminalBar();
  const now = deps.now ?? (() => performance.now());
  let lastPlain = now();
  let barShown = false;
  const onProgress = quiet
    ? undefined
    : (p: RecordProgress) => {
        if (bar) {
          bar(progressText(p));
          barShown = true;
        } else if (now() - lastPlain >= PLAIN_EVERY_MS) {
          lastPlain = now();
          io.err(plainProgressLine('recorded', progressText(p)));
        }
      };
  const clearBar = () => {
    if (bar && barShown) bar('');
    barShown = false;
  };
  const controller = new AbortController();
  void until.then(() => controller.abort());

  let summary;
  try {
    summary = await record({
      url,
      out,
      ...(group === undefined ? {} : { group }),
      ...(from === undefined ? {} : { from }),
      to,
      concurrency,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      now,
      ...(onProgress ? { onProgress } : {}),
      onNotice: (text) => {
        if (quiet) return;
        clearBar();
        io.err(text);
      },
      signal: controller.signal,
    });
  } catch (e) {
    clearBar();
    if (e instanceof RecordUsageError) throw new CliError(e.message, 2);
    if (e instanceof RecordStoppedError) throw new CliError(e.message, 130);
    if (e instanceof RecordError) throw new CliError(e.message, 1);
    throw e;
  }
  clearBar();
  const range = summary.blocks === 0 ? 'no new blocks' : `blocks ${summary.from}..${summary.from + summary.blocks - 1}`;
  io.out(
    `recorded ${summary.blocks} block${summary.blocks === 1 ? '' : 's'} (${range}), ${summary.transactions} transaction${summary.transactions === 1 ? '' : 's'} ` +
      `in ${summary.seconds.toFixed(1)} s, ${summary.blocksPerSecond.toFixed(1)} blocks/s -> ${summary.file}` +
      (summary.resumedAfter === undefined ? '' : ` (continued after block ${summary.resumedAfter})`),
  );
  if (summary.stopped) {
    io.err(`stopped before block ${summary.to + 1}; the same command continues the recording`);
    return 130;
  }
  return 0;
}
