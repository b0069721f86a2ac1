import { describe, expect, it } from 'vitest';
import type { CandidateJob, CandidateOutcome } from './candidate.js';
import { CandidatePool, type CandidateRunner } from './candidate-pool.js';

const outcome = (fail: boolean): CandidateOutcome => ({
  verdict: fail ? 'fail' : 'pass',
  violations: fail ? [{ invariant: 'x', atMs: 1, node: 'node0', height: 1, detail: '' }] : [],
  failed: [],
  digest: '',
  events: 0,
  virtualMs: 0,
  wallMs: 1,
  stoppedEarly: false,
  leaders: [],
});

/** A runner whose job "fails" when its text is in `failing`, after a delay drawn from the text (so runs finish out of order). */
function fakeRunner(failing: ReadonlySet<string>, log: string[]): CandidateRunner {
  let cancel: (() => void) | undefined;
  return {
    run: (job: CandidateJob) =>
      new Promise((resolve) => {
        log.push(job.yaml);
        const delay = [...job.yaml].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 997, 7) % 20;
        const timer = setTimeout(() => resolve(outcome(failing.has(job.yaml))), delay);
        cancel = () => {
          clearTimeout(timer);
          resolve(undefined);
        };
      }),
    cancel: () => cancel?.(),
    close: async () => undefined,
  };
}

const jobs = (n: number) => Array.from({ length: n }, (_, i) => ({ yaml: `candidate ${i}` }));

describe('candidate pool', () => {
  it('answers the first accepted candidate in list order, whatever the number of runners and the order runs end in', async () => {
    for (const failing of [[], ['candidate 7'], ['candidate 3', 'candidate 4', 'candidate 9'], ['candidate 0'], ['candidate 11']]) {
      const answers: Array<number | undefined> = [];
      for (const n of [1, 2, 3, 5]) {
        const log: string[] = [];
        const pool = new CandidatePool(Array.from({ length: n }, () => fakeRunner(new Set(failing), log)));
        const found = await pool.first(jobs(12), (o) => o.verdict === 'fail');
        expect(found).not.toBe('stopped');
        answers.push(found === 'stopped' ? -1 : found?.index);
        const index = found === 'stopped' ? undefined : found?.index;
        // everything before the answer ran; nothing after answer + runners started
        if (index !== undefined) for (let i = 0; i < index; i++) expect(log).toContain(`candidate ${i}`);
        expect(log.length).toBeLessThanOrEqual((index ?? 11) + n);
        expect(pool.stats.runs + pool.stats.cancelled).toBe(log.length);
      }
      expect(new Set(answers).size).toBe(1);
      const expected = failing.length === 0 ? undefined : Math.min(...failing.map((f) => Number(f.split(' ')[1])));
      expect(answers[0]).toBe(expected);
    }
  });

  it('answers a candidate run before from memory, and stops on request', async () => {
    const log: string[] = [];
    const pool = new CandidatePool([fakeRunner(new Set(['candidate 2']), log), fakeRunner(new Set(['candidate 2']), log)]);
    await pool.first(jobs(4), (o) => o.verdict === 'fail');
    const ran = log.length;
    const again = await pool.first(jobs(3), (o) => o.verdict === 'fail');
    expect(again !== 'stopped' && again?.index).toBe(2);
    expect(log.length).toBe(ran);
    expect(pool.stats.cached).toBeGreaterThanOrEqual(3);
    expect(pool.known({ yaml: 'candidate 1' })?.verdict).toBe('pass');
    const pending = pool.first(jobs(40).map((j) => ({ yaml: `${j.yaml}!` })), () => false);
    pool.stop();
    expect(await pending).toBe('stopped');
    expect(await pool.one({ yaml: 'anything' })).toBe('stopped');
  });
});
