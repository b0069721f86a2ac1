import { chmod, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The mode a file of a chain folder gets, whatever the umask it was written under: private keys
 * 0600 (only the node's user may read them), scripts 0755, everything else (certificates,
 * config.ini, the group files, node ids) 0644: readable, changed only by their owner.
 */
export function fileModeOf(name: string): number {
  if (name.endsWith('.key')) return 0o600;
  if (name.endsWith('.sh')) return 0o755;
  return 0o644;
}

/** Folders of a chain folder: 0755. */
export const FOLDER_MODE = 0o755;

/**
 * Sets the mode of every file and folder under `root` (and of `root`) explicitly, as fileModeOf
 * and FOLDER_MODE say: openssl and writeFile create files with 0666 less the umask, which under
 * umask 000 would let any local user swap a certificate or a config.
 */
export async function applyFileModes(root: string): Promise<void> {
  await chmod(root, FOLDER_MODE);
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const p = path.join(root, entry.name);
    if (entry.isDirectory()) await applyFileModes(p);
    else if (entry.isFile()) await chmod(p, fileModeOf(entry.name));
  }
}
