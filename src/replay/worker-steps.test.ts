import { describe, expect, it } from 'vitest';
import { WorkerSteps } from './worker-steps.js';

/** WorkerSteps over requests named by strings, with a turn queue run by hand; what it did, in order. */
function harness(skip: (request: string) => boolean = () => false) {
  const done: string[] = [];
  const turns: Array<() => void> = [];
  const steps = new WorkerSteps<string, string>({
    prepare: (r) => {
      done.push(`prepare ${r}`);
      return skip(r) ? undefined : r;
    },
    receipts: (r) => void done.push(`receipts ${r}`),
    crypto: (r) => void done.push(`crypto ${r}`),
    allPrepared: () => void done.push('all prepared'),
    later: (run) => void turns.push(run),
  });
  const turn = () => turns.shift()?.();
  const drain = () => {
    while (turns.length > 0) turn();
  };
  return { steps, done, turns, turn, drain };
}

describe('WorkerSteps', () => {
  it('prepares every part of a batch first (then says so), then encodes their receipts, then does their crypto, one part per turn, in order', () => {
    const h = harness();
    h.steps.add(['2.0', '2.1', '2.2']);
    expect(h.done).toEqual([]);
    h.turn();
    expect(h.done).toEqual(['prepare 2.0', 'prepare 2.1', 'prepare 2.2', 'all prepared']);
    h.turn();
    expect(h.done.slice(4)).toEqual(['receipts 2.0']);
    h.drain();
    expect(h.done.slice(4)).toEqual(['receipts 2.0', 'receipts 2.1', 'receipts 2.2', 'crypto 2.0', 'crypto 2.1', 'crypto 2.2']);
    expect(h.turns).toHaveLength(0);
  });

  it('prepares a batch that comes meanwhile before anything else, and encodes its receipts before the crypto left of the one before', () => {
    const h = harness();
    h.steps.add(['2.0', '2.1', '2.2']);
    h.turn();
    h.turn();
    h.steps.add(['3.0', '3.1']);
    h.drain();
    expect(h.done).toEqual([
      'prepare 2.0',
      'prepare 2.1',
      'prepare 2.2',
      'all prepared',
      'receipts 2.0',
      'prepare 3.0',
      'prepare 3.1',
      'all prepared',
      'receipts 2.1',
      'receipts 2.2',
      'receipts 3.0',
      'receipts 3.1',
      'crypto 2.0',
      'crypto 2.1',
      'crypto 2.2',
      'crypto 3.0',
      'crypto 3.1',
    ]);
  });

  it('does no receipts or crypto for a request its prepare step answered whole, and schedules one turn at a time', () => {
    const h = harness((r) => r === '4.1');
    h.steps.add(['4.0', '4.1']);
    h.steps.add(['4.2']);
    expect(h.turns).toHaveLength(1);
    h.drain();
    expect(h.done).toEqual(['prepare 4.0', 'prepare 4.1', 'prepare 4.2', 'all prepared', 'receipts 4.0', 'receipts 4.2', 'crypto 4.0', 'crypto 4.2']);
  });
});
