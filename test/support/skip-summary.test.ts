// Issue 44: browser tests never skip silently. npm test ends with a line naming what was skipped
// and why; TWINCHAIN_CHROMIUM picks the browser; TWINCHAIN_REQUIRE_BROWSER=1 (CI) turns a
// missing browser into a failure.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumProblem } from '../browser/chromium.js';
import { skipSummary, slowestFiles } from './skip-summary-reporter.js';

const dir = mkdtempSync(path.join(tmpdir(), 'twinchain-skip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the skip summary at the end of npm test', () => {
  it('names the skipped tests, their files and the reason each file noted', () => {
    const lines = skipSummary(
      [
        { file: 'test/browser/a.browser.test.ts', skipped: 10 },
        { file: 'test/browser/b.browser.test.ts', skipped: 5 },
        { file: 'test/readme.test.ts', skipped: 3 },
        { file: 'src/x.test.ts', skipped: 0 },
      ],
      [
        { file: 'test/browser/a.browser.test.ts', reason: '/usr/bin/chromium not found: install it' },
        { file: 'test/browser/b.browser.test.ts', reason: '/usr/bin/chromium not found: install it' },
      ],
    );
    expect(lines).toEqual([
      'SKIPPED: 15 tests in test/browser/a.browser.test.ts, test/browser/b.browser.test.ts: /usr/bin/chromium not found: install it',
      'skipped on purpose: 3 tests marked skip or skipIf in their files (each names its reason)',
    ]);
  });

  it('says nothing is skipped only when nothing is', () => {
    expect(skipSummary([{ file: 'src/x.test.ts', skipped: 0 }], [])).toEqual([]);
    // a file that failed to collect but noted a skip is still named
    expect(skipSummary([], [{ file: 'test/browser/a.browser.test.ts', reason: 'why' }])).toEqual(['SKIPPED: 0 tests in test/browser/a.browser.test.ts: why']);
  });
});

describe('which Chromium runs the browser tests', () => {
  it('says why a named executable cannot run, naming TWINCHAIN_CHROMIUM when it came from there', () => {
    expect(chromiumProblem(path.join(dir, 'nope'), true)).toBe(`${path.join(dir, 'nope')} (TWINCHAIN_CHROMIUM) not found`);
    expect(chromiumProblem(path.join(dir, 'nope'), false)).toBe(`${path.join(dir, 'nope')} not found`);
    expect(chromiumProblem(dir, true)).toBe(`${dir} (TWINCHAIN_CHROMIUM) is not a file`);
    const plain = path.join(dir, 'plain');
    writeFileSync(plain, '');
    chmodSync(plain, 0o644);
    if (process.getuid?.() !== 0) expect(chromiumProblem(plain, false)).toBe(`${plain} cannot be run (not executable)`);
    expect(chromiumProblem(process.execPath, true)).toBeUndefined();
  });
});

describe('slowestFiles', () => {
  it('lists the ten slowest files, slowest first, with seconds aligned', () => {
    const modules = Array.from({ length: 12 }, (_, i) => ({ file: `f${i}.test.ts`, durationMs: (i + 1) * 1500 }));
    const lines = slowestFiles(modules);
    expect(lines[0]).toBe('the 10 slowest test files:');
    expect(lines).toHaveLength(11);
    expect(lines[1]).toBe('  18.0 s  f11.test.ts');
    expect(lines[10]).toBe('   4.5 s  f2.test.ts');
    expect(slowestFiles([])).toEqual([]);
  });
});
