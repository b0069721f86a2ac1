// The head of a long block line: its block with only the first transactions, as JSON text, found
// by one pass over the line's structure (strings skipped whole) instead of a parse of the whole
// line. A replay's worker parses that head first, so that the first big block's first
// transactions can start executing while the whole line is still being parsed (crypto-worker.ts).
//
// The head holds exactly the bytes of the line that JSON.parse of the whole line would read for
// them: the line's keys before the block's `transactions`, the first transactions, and the rest of
// the block after the transaction list. A line where that might not hold is given no head (the
// whole-line path then reads it): a repeated key in the line object or in its block (JSON.parse
// keeps the last one), a transaction list holding anything but objects, or a line that does not
// end its block where expected. Keys after the block are not looked at, nor the receipts: the
// worker reads the whole line next and compares (block-prep.ts's prepareRange).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export interface LineHead {
  /** How many transactions the block's list holds. */
  readonly count: number;
  /** How many the head can hold: `wanted`, or fewer where the list holds no more. */
  readonly most: number;
  /** `{…the line's keys before "block"…,"block":{…,"transactions":[the first `taken` (1..most)],…the rest of the block…}}` */
  text(taken: number): string;
}

/** Index of the quote that ends the string starting at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    // escaped when an odd number of backslashes precede it
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/**
 * The head of a block line (`{"number":N,"block":{…},"receipts":[…]}` in any key order) with up
 * to its block's first `wanted` transactions, or undefined where the line has no such head (see
 * the module comment).
 */
export function lineHead(text: string, wanted: number): LineHead | undefined {
  if (wanted < 1 || text.charCodeAt(0) !== OPEN_BRACE) return undefined;
  const topKeys = new Set<string>();
  const blockKeys = new Set<string>();
  let depth = 0;
  let stringStart = -1;
  let stringStop = -1;
  let inBlock = false;
  /** Where the block's transaction list opens and closes, where each of its first `wanted` transactions ends. */
  let listOpen = -1;
  let listClose = -1;
  const ends: number[] = [];
  let count = 0;
  let nextKey = '';
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      const end = stringEnd(text, at);
      if (end < 0) return undefined;
      // a string value in the transaction list
      if (listOpen >= 0 && listClose < 0 && depth === 3) return undefined;
      stringStart = at;
      stringStop = end;
      at = end;
      continue;
    }
    if (c === COLON) {
      if (depth === 1 || (depth === 2 && inBlock)) {
        const key = text.slice(stringStart + 1, stringStop);
        const seen = depth === 1 ? topKeys : blockKeys;
        if (seen.has(key)) return undefined;
        seen.add(key);
        nextKey = key;
      }
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2 && nextKey === 'block' && c === OPEN_BRACE) {
        inBlock = true;
      } else if (depth === 3 && inBlock && nextKey === 'transactions' && listOpen < 0) {
        if (c !== OPEN_BRACKET) return undefined;
        listOpen = at;
      } else if (depth === 4 && listOpen >= 0 && listClose < 0 && c !== OPEN_BRACE) {
        // a list in the transaction list
        return undefined;
      }
      nextKey = '';
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 4 && listOpen >= 0 && listClose < 0) {
        count++;
        if (count <= wanted) ends.push(at + 1);
      } else if (depth === 3 && listOpen >= 0 && listClose < 0) listClose = at;
      else if (depth === 2 && inBlock) {
        // the block's end: what comes after (its receipts) is not needed
        if (c !== CLOSE_BRACE || listClose < 0 || count === 0) return undefined;
        const tail = text.slice(listClose, at + 1);
        return { count, most: ends.length, text: (taken) => `${text.slice(0, ends[taken - 1])}${tail}}` };
      }
      depth--;
      if (depth < 0) return undefined;
      continue;
    }
    // a number or literal value in the transaction list
    if (depth === 3 && listOpen >= 0 && listClose < 0 && c > 0x20 && c !== 0x2c) return undefined;
  }
  return undefined;
}
