// What a failed file-system call means, in words a user can act on, by Node's error code: shared
// by the commands' output checks and by every reader of a file a user names (scenarios, recordings).

const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file of that name is in the way',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
  EIO: 'input/output error',
};

/** "permission denied", "it is a folder", ...: the code itself where it is not listed, else the message. */
export function fileSystemWords(e: NodeJS.ErrnoException): string {
  return (e.code && WORDS[e.code]) ?? e.code ?? e.message;
}
