/**
 * Text at a location, as StrykerJS reports it: lines and columns both 1-based, columns counted
 * in UTF-16 code units (JavaScript string indices), the end exclusive.
 */
export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface SourceLocation {
  readonly start: Position;
  readonly end: Position;
}

/** A location that does not exist in a text: names the position and why. */
export class LocationError extends Error {
  override readonly name = 'LocationError';
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The string index of a position, or LocationError when the text has no such line or column. */
export function offsetOf(text: string, pos: Position, starts: readonly number[] = lineStarts(text)): number {
  if (!Number.isInteger(pos.line) || !Number.isInteger(pos.column) || pos.line < 1 || pos.column < 1) throw new LocationError(`${pos.line}:${pos.column} is not a position (lines and columns start at 1)`);
  const start = starts[pos.line - 1];
  if (start === undefined) throw new LocationError(`line ${pos.line} is past the end (the text has ${starts.length} lines)`);
  const lineEnd = pos.line < starts.length ? starts[pos.line]! - 1 : text.length;
  // a column one past the line's last character is the line end (an end position may sit there)
  if (pos.column - 1 > lineEnd - start) throw new LocationError(`column ${pos.column} is past the end of line ${pos.line} (${lineEnd - start} characters)`);
  return start + pos.column - 1;
}

/** [start, end) string indices of a location; LocationError when it does not exist or ends before it starts. */
export function rangeOf(text: string, at: SourceLocation): readonly [number, number] {
  const starts = lineStarts(text);
  const from = offsetOf(text, at.start, starts);
  const to = offsetOf(text, at.end, starts);
  if (to < from) throw new LocationError(`${at.end.line}:${at.end.column} comes before ${at.start.line}:${at.start.column}`);
  return [from, to];
}

/** The text at a location. */
export function textAt(text: string, at: SourceLocation): string {
  const [from, to] = rangeOf(text, at);
  return text.slice(from, to);
}

/** The text with the location's span replaced. */
export function replaceAt(text: string, at: SourceLocation, replacement: string): string {
  const [from, to] = rangeOf(text, at);
  return text.slice(0, from) + replacement + text.slice(to);
}

export function locationLabel(at: SourceLocation): string {
  return `${at.start.line}:${at.start.column}-${at.end.line}:${at.end.column}`;
}
