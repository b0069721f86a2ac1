// The progress line record and replay draw on stderr: a bar redrawn in place on a terminal, the
// same text without the bar every few seconds otherwise.

/** How far a run has come: blocks of `total`, with the rate so far and the time left at that rate. */
export interface ProgressFigures {
  readonly blocks: number;
  readonly total: number;
  readonly transactions: number;
  readonly blocksPerSecond: number;
  /** Undefined before there is a rate to go by. */
  readonly etaSeconds?: number | undefined;
}

/** Plain lines (stderr no terminal) at most this often. */
export const PLAIN_EVERY_MS = 5000;

/** 42s, 3m07s, 2h05m. */
function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** "[#####-----] 120/1000 blocks  12%  1503 tx  85.3 blocks/s  ETA 11s" */
export function progressText(p: ProgressFigures, width = 24): string {
  const share = p.total === 0 ? 1 : Math.min(1, p.blocks / p.total);
  const filled = Math.round(share * width);
  const eta = p.etaSeconds === undefined ? 'ETA ?' : `ETA ${duration(p.etaSeconds)}`;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.blocks}/${p.total} blocks  ${Math.floor(share * 100)}%  ${p.transactions} tx  ${p.blocksPerSecond.toFixed(1)} blocks/s  ${eta}`;
}

/** The text without its bar, for a plain line. */
export function withoutBar(text: string): string {
  return text.replace(/^\[[#-]*\] /, '');
}

/** The plain line (stderr no terminal): "replayed 120/1000 blocks  12%  1503 tx  85.3 blocks/s  ETA 11s". */
export function plainProgressLine(verb: 'recorded' | 'replayed', text: string): string {
  return `${verb} ${withoutBar(text)}`;
}

/**
 * A plain progress line, for callers that read a command's stderr: how many a run prints depends on
 * how fast the machine is (one every PLAIN_EVERY_MS).
 */
export const PLAIN_PROGRESS_LINE = /^(recorded|replayed) \d+\/\d+ blocks {2}\d+% {2}/;

/** A bar redrawn in place on stderr when it is a terminal ('' clears it); undefined otherwise. */
export function terminalBar(): ((text: string) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (text) => void process.stderr.write(text === '' ? '\r\x1b[K' : `\r${text}\x1b[K`);
}
