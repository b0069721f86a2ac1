/*
 * Request ids as the client wrote them. JSON.parse turns every number into a double, so an id
 * such as 9007199254740993 (2^53 + 1) or 18446744073709551615 (2^64 - 1) would be echoed
 * rounded. The envelope says the id is echoed, so the reply carries the id's own digits: the
 * request text is scanned (without allocating a tree) for the raw text of the top-level "id"
 * member of the request object, or of each request object in a batch.
 */

/** Raw number text of the "id" of a single request (index 0) or of each batch item. */
export interface RawIds {
  readonly batch: boolean;
  /** Item index → the id's number text, for ids that are JSON numbers. */
  readonly ids: ReadonlyMap<number, string>;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

function skipString(text: string, at: number): number {
  // `at` is the opening quote; returns the index after the closing quote (or text.length).
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

function decodeKey(raw: string): string | undefined {
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

/**
 * Scan a request body for its ids. Any body JSON.parse accepts is scanned correctly; for other
 * bodies the result does not matter (they get a parse error with a null id).
 */
export function scanRawIds(text: string): RawIds {
  const ids = new Map<number, string>();
  // Container stack: 'o' object, 'a' array. Request objects sit at depth 1 (single) or 2 (batch).
  const stack: ('o' | 'a')[] = [];
  let batch = false;
  let item = -1;
  let expectKey = false;
  let pendingKey: string | undefined;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{' || c === '[') {
      if (stack.length === 0 && c === '[') batch = true;
      if (c === '{' && stack.length === (batch ? 1 : 0)) item = batch ? item + 1 : 0;
      stack.push(c === '{' ? 'o' : 'a');
      expectKey = c === '{';
      pendingKey = undefined;
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
      pendingKey = undefined;
      i++;
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] === 'o';
      pendingKey = undefined;
      i++;
    } else if (c === ':') {
      i++;
    } else if (c === '"') {
      const end = skipString(text, i);
      if (expectKey) {
        pendingKey = decodeKey(text.slice(i, end));
        expectKey = false;
      } else {
        pendingKey = undefined;
      }
      i = end;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      const raw = m ? m[0] : c;
      const atRequest = stack.length === (batch ? 2 : 1) && stack[stack.length - 1] === 'o';
      if (atRequest && pendingKey === 'id' && item >= 0) ids.set(item, raw);
      pendingKey = undefined;
      i += raw.length;
    } else {
      // true/false/null, whitespace: an id that is not a number is echoed from the parsed value.
      if (c === 't' || c === 'f' || c === 'n') {
        const atRequest = stack.length === (batch ? 2 : 1) && stack[stack.length - 1] === 'o';
        if (atRequest && pendingKey === 'id' && item >= 0) ids.delete(item);
        pendingKey = undefined;
      }
      i++;
    }
  }
  return { batch, ids };
}

/** True when the id text means a different integer than the double JSON.parse made of it. */
export function needsRawEcho(raw: string, parsed: unknown): boolean {
  if (typeof parsed !== 'number' || !/^-?[0-9]+$/.test(raw)) return false;
  return BigInt(raw) !== BigInt(Math.trunc(parsed)) || !Number.isSafeInteger(parsed);
}
