import { describe, expect, it } from 'vitest';
import { bytesOf, numberOf, quantityOf, ReplayInputError } from './recorded-json.js';

const at = { block: 7, index: 2 };

describe("a recording's values, read strictly", () => {
  it('quantities: 0x hex or decimal, as strings or whole JSON numbers ≥ 0; anything else names the block, transaction and field', () => {
    expect(quantityOf({ v: '0x1f' }, 'v', at)).toBe(31n);
    expect(quantityOf({ v: '31' }, 'v', at)).toBe(31n);
    expect(quantityOf({ v: 31 }, 'v', at)).toBe(31n);
    expect(quantityOf({ v: 0 }, 'v', at)).toBe(0n);
    for (const bad of [-1, -0.5, 1.5, Number.MAX_SAFE_INTEGER + 1, '-1', '0x', '1e3', ' 1', null, true]) {
      expect(() => quantityOf({ v: bad }, 'v', at), JSON.stringify(bad)).toThrow(ReplayInputError);
    }
    expect(() => quantityOf({ v: -1 }, 'v', at)).toThrow('block 7, transaction 2: "v" is not a quantity: -1');
    expect(() => quantityOf({}, 'gasUsed', { block: 3 })).toThrow('block 3: "gasUsed" is missing');
    expect(numberOf({ v: `0x${(2n ** 53n - 1n).toString(16)}` }, 'v', at)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => numberOf({ v: `0x${(2n ** 53n).toString(16)}` }, 'v', at)).toThrow('"v" is too large: 9007199254740992');
  });

  it('bytes of a fixed length: exactly that many, neither fewer nor more', () => {
    const h = (n: number) => `0x${'ab'.repeat(n)}`;
    expect(bytesOf({ hash: h(32) }, 'hash', at, 32)).toHaveLength(32);
    expect(() => bytesOf({ hash: h(31) }, 'hash', at, 32)).toThrow('block 7, transaction 2: "hash" must be 32 bytes, got 31');
    expect(() => bytesOf({ hash: h(33) }, 'hash', at, 32)).toThrow('"hash" must be 32 bytes, got 33');
    expect(bytesOf({ input: '0x' }, 'input', at)).toHaveLength(0);
    expect(() => bytesOf({ input: '0xabc' }, 'input', at)).toThrow(/"input" is not hex data/);
    expect(() => bytesOf({ input: 12 }, 'input', at)).toThrow('"input" is not a hex string: 12');
  });
});
