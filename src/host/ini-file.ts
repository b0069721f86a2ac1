/** One `key=value` line of an INI file, with where it was written. */
export interface IniEntry {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

export interface IniSection {
  readonly name: string;
  readonly line: number;
  readonly entries: readonly IniEntry[];
}

/** A problem in a configuration file, worded `file:line: key: problem` (or `file: [section] key: problem` when the key is missing). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * An INI file as FISCO's (boost property_tree) reads it: `[section]` headers, `key=value` lines
 * with surrounding blanks trimmed, `;` and `#` comment lines, blank lines. Keys before any
 * section, lines that are neither, and a key given twice in one section are errors: FISCO would
 * silently keep one of them, and a user editing the file deserves to know.
 */
export class IniFile {
  private constructor(
    readonly file: string,
    readonly sections: ReadonlyMap<string, IniSection>,
  ) {}

  static parse(text: string, file: string): IniFile {
    const sections = new Map<string, { name: string; line: number; entries: IniEntry[] }>();
    let current: { name: string; line: number; entries: IniEntry[] } | undefined;
    const lines = text.split(/\r?\n/);
    for (const [index, raw] of lines.entries()) {
      const line = index + 1;
      const text = raw.trim();
      if (text === '' || text.startsWith(';') || text.startsWith('#')) continue;
      const header = /^\[([^\]]*)\]$/.exec(text);
      if (header) {
        const name = header[1]!.trim();
        if (name === '') throw new ConfigError(`${file}:${line}: empty section name "[]"`);
        const existing = sections.get(name);
        if (existing) throw new ConfigError(`${file}:${line}: [${name}]: section already started at line ${existing.line}`);
        current = { name, line, entries: [] };
        sections.set(name, current);
        continue;
      }
      const eq = text.indexOf('=');
      if (eq <= 0) throw new ConfigError(`${file}:${line}: "${clip(text)}": expected key=value, a [section] or a ; comment`);
      const key = text.slice(0, eq).trim();
      const value = text.slice(eq + 1).trim();
      if (!current) throw new ConfigError(`${file}:${line}: ${key}: key outside any [section]`);
      const twice = current.entries.find((e) => e.key === key);
      if (twice) throw new ConfigError(`${file}:${line}: ${key}: given twice in [${current.name}] (first at line ${twice.line})`);
      current.entries.push({ key, value, line });
    }
    return new IniFile(file, sections);
  }

  section(name: string): IniSection | undefined {
    return this.sections.get(name);
  }

  entry(section: string, key: string): IniEntry | undefined {
    return this.sections.get(section)?.entries.find((e) => e.key === key);
  }

  /** Entries of a section whose key matches `pattern` (e.g. node.N), in file order. */
  entriesMatching(section: string, pattern: RegExp): IniEntry[] {
    return (this.sections.get(section)?.entries ?? []).filter((e) => pattern.test(e.key));
  }

  /** A typed value: `read` returns the value or a problem text; absent keys give `fallback`, or an error when there is none. */
  get<T>(section: string, key: string, read: (value: string) => T | { problem: string }, fallback?: T): T {
    const entry = this.entry(section, key);
    if (!entry) {
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`${this.file}: [${section}] ${key}: missing`);
    }
    const result = read(entry.value);
    if (isProblem(result)) throw this.error(entry, result.problem);
    return result;
  }

  error(entry: IniEntry, problem: string): ConfigError {
    return new ConfigError(`${this.file}:${entry.line}: ${entry.key}: ${problem}`);
  }
}

function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && 'problem' in value && Object.keys(value).length === 1;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

// --- value readers -------------------------------------------------------------------------

export const readers = {
  text: (value: string) => value,
  nonEmpty: (value: string) => (value === '' ? { problem: 'must not be empty' } : value),
  bool: (value: string): boolean | { problem: string } => {
    const v = value.toLowerCase();
    if (v === 'true' || v === '1' || v === 'on' || v === 'yes') return true;
    if (v === 'false' || v === '0' || v === 'off' || v === 'no') return false;
    return { problem: `"${value}" is not true or false` };
  },
  integer:
    (min: number, max: number) =>
    (value: string): number | { problem: string } => {
      if (!/^-?\d+$/.test(value)) return { problem: `"${value}" is not an integer` };
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < min || n > max) return { problem: `${value} is out of range ${min}..${max}` };
      return n;
    },
  port: (value: string): number | { problem: string } => {
    if (!/^\d+$/.test(value)) return { problem: `"${value}" is not a port number` };
    const n = Number(value);
    return n >= 1 && n <= 65535 ? n : { problem: `port ${value} is out of range 1..65535` };
  },
  ip: (value: string): string | { problem: string } => (isIpv4(value) ? value : { problem: `"${value}" is not an IPv4 address` }),
  oneOf:
    <T extends string>(allowed: readonly T[]) =>
    (value: string): T | { problem: string } =>
      (allowed as readonly string[]).includes(value) ? (value as T) : { problem: `"${value}" must be one of ${allowed.join(', ')}` },
  nodeId: (value: string): string | { problem: string } =>
    /^[0-9a-fA-F]{128}$/.test(value) ? value.toLowerCase() : { problem: `"${clip(value)}" is not a node id (128 hex characters)` },
  /** `ip:port`. */
  endpoint: (value: string): { host: string; port: number } | { problem: string } => {
    const m = /^([^:]+):(\d+)$/.exec(value);
    if (!m || !isIpv4(m[1]!)) return { problem: `"${value}" is not ip:port (e.g. 127.0.0.1:30300)` };
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return { problem: `port ${m[2]} is out of range 1..65535` };
    return { host: m[1]!, port };
  },
};

export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}
