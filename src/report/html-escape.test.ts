import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonForScript } from './html-escape.js';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    expect(escapeHtml('node0 → node1 ✓')).toBe('node0 → node1 ✓');
  });
});

describe('jsonForScript', () => {
  const hostile = ['</script>', '</SCRIPT >', '<!--', '-->', '<script>', '\u2028', '\u2029', '&amp;', '"\\', '\ud800'];

  it('leaves nothing that could end or confuse a script element, and parses back to the same value', () => {
    const value = { strings: hostile, nested: { key: hostile.join('') }, n: 1.5, none: null };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
    // valid JavaScript too (U+2028 used to end string literals before ES2019)
    expect(new Function(`return ${json};`)()).toEqual(value);
  });

  it('writes non-finite numbers as null, like JSON.stringify', () => {
    expect(jsonForScript({ a: Number.NaN, b: Number.POSITIVE_INFINITY })).toBe('{"a":null,"b":null}');
  });
});
