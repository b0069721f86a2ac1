import { describe, expect, it } from 'vitest';
import { fiscoJson, fiscoStyledJson, jsoncppQuote } from './fisco-json.js';

// Expected texts traced by hand through jsoncpp 1.7.7's StyledWriter and FastWriter
describe("jsoncpp's writers as FISCO 2.x's precompiles use them", () => {
  it('StyledWriter: a row per block, a member per line, three-space indents, " : " between name and value', () => {
    expect(fiscoStyledJson([{ score: '20', id: '2', name: 'k' }])).toBe('[\n   {\n      "id" : "2",\n      "name" : "k",\n      "score" : "20"\n   }\n]\n');
    expect(fiscoStyledJson([{ a: '1' }, { a: '2' }])).toBe('[\n   {\n      "a" : "1"\n   },\n   {\n      "a" : "2"\n   }\n]\n');
    expect(fiscoStyledJson([])).toBe('[]\n');
    expect(fiscoStyledJson([{}])).toBe('[ {} ]\n');
  });

  it('StyledWriter: an array of scalars on one line until its line would reach the right margin (74) or it holds 25 elements', () => {
    expect(fiscoStyledJson(['a', 'b'])).toBe('[ "a", "b" ]\n');
    const long = ['x'.repeat(40), 'y'.repeat(40)];
    expect(fiscoStyledJson(long)).toBe(`[\n   "${long[0]}",\n   "${long[1]}"\n]\n`);
    const many = Array.from({ length: 25 }, (_, i) => i);
    expect(fiscoStyledJson(many)).toBe(`[\n${many.map((n) => `   ${n}`).join(',\n')}\n]\n`);
    // 23 one-digit elements make a line of 4 + 22 × 2 + 23 = 71 characters; 24 make 74, the margin
    const zeros = (n: number) => Array.from({ length: n }, () => 0);
    expect(fiscoStyledJson(zeros(23))).toBe(`[ ${zeros(23).join(', ')} ]\n`);
    expect(fiscoStyledJson(zeros(24))).toBe(`[\n${zeros(24).map((n) => `   ${n}`).join(',\n')}\n]\n`);
  });

  it('FastWriter: compact, a newline at the end', () => {
    expect(fiscoJson([{ b: '1', a: '2' }])).toBe('[{"a":"2","b":"1"}]\n');
    expect(fiscoJson([])).toBe('[]\n');
  });

  it('quotes as valueToQuotedStringN: short escapes, other control bytes as upper-case \\u00XX, the rest as it is', () => {
    expect(jsoncppQuote('a"b\\c\n\t\u0001\u001f/é\u007f')).toBe('"a\\"b\\\\c\\n\\t\\u0001\\u001F/é\u007f"');
  });

  it('orders members by their UTF-8 bytes (a std::map of names), not by UTF-16 code units', () => {
    const row = { '\u{1F600}': '1', '\uE000': '2', z: '3', a: '4' };
    expect(fiscoJson(row)).toBe('{"a":"4","z":"3","\uE000":"2","\u{1F600}":"1"}\n');
  });
});
