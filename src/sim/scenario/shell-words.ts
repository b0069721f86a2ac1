/** One word for a POSIX shell: as is when it is plainly safe, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./:@%+,=-]+$/.test(word) && !word.startsWith('-')) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `--name value` for a shell, as `--name=value` when the value starts with a dash (else it reads as an option). */
export function shellOption(name: string, value: string): string {
  return value.startsWith('-') ? shellWord(`--${name}=${value}`) : `--${name} ${shellWord(value)}`;
}
