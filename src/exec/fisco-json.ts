/**
 * JSON text as FISCO BCOS 2.x's precompiles write it, with the jsoncpp it is built with (1.7.7):
 * `FastWriter` (CNS and Permission: compact) and `Value::toStyledString`, a `StyledWriter` (CRUD's
 * select: one member per line, three-space indents). Both end with a newline, sort an object's
 * members by their bytes (jsoncpp keeps them in a std::map) and quote strings alike: `"` and `\`
 * escaped, the short escapes for \b \f \n \r \t, any other byte below 0x20 as `\u00XX` in upper
 * case, everything else (UTF-8 included) as it is.
 */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** FastWriter's text: no spaces, a newline at the end. */
export function fiscoJson(value: JsonValue): string {
  return `${fast(value)}\n`;
}

/** Value::toStyledString's text (jsoncpp 1.7.7's StyledWriter), a newline at the end. */
export function fiscoStyledJson(value: JsonValue): string {
  const writer = new StyledWriter();
  writer.writeValue(value);
  return `${writer.document}\n`;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** jsoncpp's valueToQuotedStringN. */
export function jsoncppQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    out += SHORT_ESCAPES[ch] ?? (code < 0x20 ? `\\u${code.toString(16).toUpperCase().padStart(4, '0')}` : ch);
  }
  return `${out}"`;
}

function scalar(value: null | boolean | number | string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return jsoncppQuote(value);
  if (typeof value === 'number' && !Number.isInteger(value)) throw new TypeError(`fisco-json: ${value}: only integers are written as jsoncpp writes them here`);
  return String(value);
}

/** jsoncpp's order of an object's members (a std::map of names): by the bytes of their UTF-8 names. */
export function jsoncppNameOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function members(value: { readonly [key: string]: JsonValue }): [string, JsonValue][] {
  return Object.entries(value).sort(([a], [b]) => jsoncppNameOrder(a, b));
}

function fast(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(fast).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${members(value as { readonly [key: string]: JsonValue })
      .map(([k, v]) => `${jsoncppQuote(k)}:${fast(v)}`)
      .join(',')}}`;
  }
  return scalar(value as null | boolean | number | string);
}

const RIGHT_MARGIN = 74;
const INDENT = '   ';

/** jsoncpp 1.7.7's StyledWriter, step for step (writeIndent, isMultineArray, childValues_). */
class StyledWriter {
  document = '';
  private indentString = '';
  private childValues: string[] = [];
  private addChildValues = false;

  writeValue(value: JsonValue): void {
    if (Array.isArray(value)) return this.writeArray(value);
    if (value !== null && typeof value === 'object') return this.writeObject(value as { readonly [key: string]: JsonValue });
    this.pushValue(scalar(value as null | boolean | number | string));
  }

  private writeObject(value: { readonly [key: string]: JsonValue }): void {
    const entries = members(value);
    if (entries.length === 0) return this.pushValue('{}');
    this.writeWithIndent('{');
    this.indentString += INDENT;
    entries.forEach(([name, child], i) => {
      this.writeWithIndent(jsoncppQuote(name));
      this.document += ' : ';
      this.writeValue(child);
      if (i < entries.length - 1) this.document += ',';
    });
    this.indentString = this.indentString.slice(INDENT.length);
    this.writeWithIndent('}');
  }

  private writeArray(value: readonly JsonValue[]): void {
    if (value.length === 0) return this.pushValue('[]');
    if (this.isMultiLineArray(value)) {
      this.writeWithIndent('[');
      this.indentString += INDENT;
      const hasChildValues = this.childValues.length > 0;
      value.forEach((child, i) => {
        if (hasChildValues) this.writeWithIndent(this.childValues[i]!);
        else {
          this.writeIndent();
          this.writeValue(child);
        }
        if (i < value.length - 1) this.document += ',';
      });
      this.indentString = this.indentString.slice(INDENT.length);
      this.writeWithIndent(']');
    } else {
      this.document += `[ ${this.childValues.join(', ')} ]`;
    }
  }

  /** Whether an array takes a line per element: long, or holding a non-empty array or object (its elements' texts kept in childValues when not). */
  private isMultiLineArray(value: readonly JsonValue[]): boolean {
    let multiLine = value.length * 3 >= RIGHT_MARGIN;
    this.childValues = [];
    for (const child of value) {
      if (multiLine) break;
      multiLine = (Array.isArray(child) && child.length > 0) || (child !== null && typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length > 0);
    }
    if (!multiLine) {
      this.addChildValues = true;
      let lineLength = 4 + (value.length - 1) * 2;
      for (const child of value) {
        this.writeValue(child);
        lineLength += Buffer.byteLength(this.childValues.at(-1)!, 'utf8');
      }
      this.addChildValues = false;
      multiLine = lineLength >= RIGHT_MARGIN;
    }
    return multiLine;
  }

  private pushValue(text: string): void {
    if (this.addChildValues) this.childValues.push(text);
    else this.document += text;
  }

  private writeIndent(): void {
    if (this.document.length > 0) {
      const last = this.document.at(-1);
      if (last === ' ') return;
      if (last !== '\n') this.document += '\n';
    }
    this.document += this.indentString;
  }

  private writeWithIndent(text: string): void {
    this.writeIndent();
    this.document += text;
  }
}
