import { describe, expect, it } from 'vitest';
import { SafetyMonitor } from './safety-monitor.js';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const commit = (number: number, hash: number, parent: number, roots: { state?: number; receipts?: number } = {}) => ({
  group: 1,
  number,
  hash: h(hash),
  parent: h(parent),
  stateRoot: h(roots.state ?? 1000 + number),
  receiptsRoot: h(roots.receipts ?? 2000 + number),
  txs: 1,
});

describe('the safety monitor', () => {
  it('accepts agreeing commits and reports each first commit once', () => {
    const m = new SafetyMonitor(['a', 'b']);
    const firsts: number[] = [];
    m.onFirstCommit = (_g, height) => firsts.push(height);
    for (const node of ['a', 'b']) {
      m.onNodeEvent(node, 'block-committed', commit(1, 11, 0), 10);
      m.onNodeEvent(node, 'block-committed', commit(2, 12, 11), 20);
    }
    expect(m.violations).toEqual([]);
    expect(firsts).toEqual([1, 2]);
    expect(m.heightOf('b', 1)).toBe(2);
  });

  it('catches two blocks at one height, differing roots, a broken parent link, and heights that jump or go back', () => {
    const m = new SafetyMonitor(['a', 'b', 'c']);
    m.onNodeEvent('a', 'block-committed', commit(1, 11, 0), 10);
    m.onNodeEvent('b', 'block-committed', commit(1, 99, 0), 11);
    m.onNodeEvent('c', 'block-committed', commit(1, 11, 0, { state: 5 }), 12);
    m.onNodeEvent('a', 'block-committed', commit(2, 12, 77), 20);
    m.onNodeEvent('a', 'block-committed', commit(4, 14, 13), 30);
    m.onNodeEvent('a', 'block-committed', commit(4, 14, 13), 31);
    expect(m.violations.map((v) => [v.invariant, v.node, v.height])).toEqual([
      ['agreement', 'b', 1],
      ['state-root', 'c', 1],
      ['parent-link', 'a', 2],
      ['heights', 'a', 4],
      ['heights', 'a', 4],
    ]);
    expect(m.violations[0]!.detail).toBe(`b committed ${h(99).slice(0, 10)}… at height 1, a committed ${h(11).slice(0, 10)}…`);
    expect(m.violations[3]!.detail).toBe('a jumped from height 2 to 4');
    expect(m.violations[4]!.detail).toBe('a committed height 4 after already reaching 4');
  });

  it('ignores nodes it does not hold to account (byzantine, twins)', () => {
    const m = new SafetyMonitor(['a']);
    m.onNodeEvent('a', 'block-committed', commit(1, 11, 0), 10);
    m.onNodeEvent('evil', 'block-committed', commit(1, 66, 0), 11);
    expect(m.violations).toEqual([]);
  });
});
