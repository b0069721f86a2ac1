// File-system failures in words, an entry of its own: the CLI's start (`twinchain --help`) reads it
// and must not load the rest of the runtime.
export { fileSystemWords } from './file-system-words.js';
