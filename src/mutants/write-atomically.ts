import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes `file` whole or not at all (a temporary file renamed over it), creating its folder: an interrupted run never leaves half a state file. */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, data);
  await rename(`${file}.tmp`, file);
}
