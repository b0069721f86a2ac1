/** A value that failed to parse. The message always quotes the offending value. */
export class CodecError extends Error {
  override readonly name = 'CodecError';
  constructor(
    /** What was being parsed, e.g. a parameter name ("blockNumber"); empty when unknown. */
    readonly field: string,
    /** The offending value, as received. */
    readonly value: unknown,
    /** Why it was rejected. */
    readonly reason: string,
  ) {
    super(`${field ? `${field}: ` : ''}${reason} (got ${describeValue(value)})`);
  }
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 80 ? `${value.slice(0, 77)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  try {
    const json = JSON.stringify(value);
    return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    return typeof value;
  }
}
