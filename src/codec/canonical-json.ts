/**
 * Canonical JSON: object keys sorted, no whitespace, bigints as decimal strings, Uint8Array as
 * 0x-hex, undefined properties dropped. The same value always gives the same text, which is
 * what the simulation trace digests.
 */
export function canonicalJson(value: unknown): string {
  return write(value);
}

function write(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
      return 'null';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Uint8Array) return JSON.stringify(`0x${Buffer.from(value).toString('hex')}`);
      if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
      if (value instanceof Map) return write(Object.fromEntries(value));
      const record = value as Record<string, unknown>;
      // own enumerable string keys in code-unit order (what sorting Object.entries by key gives)
      const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      let out = '{';
      for (const k of keys) {
        const v = record[k];
        if (v === undefined) continue;
        if (out.length > 1) out += ',';
        out += `${JSON.stringify(k)}:${write(v)}`;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  }
}
