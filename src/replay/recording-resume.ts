// Continuing an existing recording: what it holds and where to append (dropping a line cut off
// by a run that stopped while writing it).
import { open, stat, truncate } from 'node:fs/promises';
import { RecordingError, RecordingReader, type RecordingHeader } from './recording.js';
import { RecordUsageError } from './record-errors.js';

/** Where a file's last line starts: just after its last line end (0 where it has none). */
async function lastLineStart(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 16);
    for (let end = (await handle.stat()).size; end > 0; end -= chunk.length) {
      const from = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - from, from);
      const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (at >= 0) return from + at + 1;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

/** What an existing file holds, and how to append to it (compressed or not, whether its last line needs its line end). */
export interface ExistingRecording {
  readonly header: RecordingHeader;
  readonly last: number;
  readonly lastHash: unknown;
  readonly gzip: boolean;
  readonly lineEndMissing: boolean;
}

export async function existingRecording(file: string, notice: (text: string) => void): Promise<ExistingRecording | undefined> {
  try {
    if ((await stat(file)).size === 0) return undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RecordUsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let reader: RecordingReader;
  try {
    reader = await RecordingReader.open(file);
  } catch (e) {
    throw new RecordUsageError(`${(e as Error).message} (--out names an existing file, which is continued only when it is a recording)`);
  }
  let last = reader.header.from - 1;
  let lastHash: unknown = undefined;
  try {
    for await (const b of reader.blocks()) {
      last = b.number;
      lastHash = b.block.hash;
    }
  } catch (e) {
    // an --out that cannot be continued is a usage error (exit 2, as record --help says): nothing was asked of the node
    if (!(e instanceof RecordingError) || e.line < 2) throw new RecordUsageError(`cannot continue ${file}: ${(e as Error).message}`);
    const whole = `its lines 1–${e.line - 1} (blocks ${reader.header.from}–${last}) are whole`;
    if (reader.gzip && e.cutOff) {
      throw new RecordUsageError(`cannot continue ${file}: ${e.message}; ${whole}: \`zcat ${file} | head -n ${e.line - 1} | gzip > whole.jsonl.gz\` keeps them, and recording into that file continues it`);
    }
    // the reader reads a line at a time, so it failed at the file's last line exactly when that line had no line end
    if (reader.gzip || !reader.lastLineUnterminated) throw new RecordUsageError(`cannot continue ${file}: ${e.message}`);
    // that line was never a block of the recording: the run that wrote it stopped in its middle
    await truncate(file, await lastLineStart(file));
    notice(`${file}: dropped its last line ${e.line}, cut off by a run that stopped while writing it (${e.problem}); ${whole}`);
    return { header: reader.header, last, lastHash, gzip: false, lineEndMissing: false };
  }
  return { header: reader.header, last, lastHash, gzip: reader.gzip, lineEndMissing: reader.lastLineUnterminated };
}
