import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPlantedBugs, PlantedBugError, withBugPlanted, type PlantedBug } from './planted-bugs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'planted-bugs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function catalogue(entries: unknown, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(scratch, 'c-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  writeFileSync(path.join(dir, 'bugs.json'), JSON.stringify(entries));
  return dir;
}

describe('the planted-bug catalogue (mutation/planted-bugs.json)', () => {
  it('applies to the code as it is: each find once in its file, the tests it names present, every bug checked or equivalent', () => {
    const bugs = loadPlantedBugs(root);
    expect(bugs.length).toBeGreaterThanOrEqual(100);
    expect(bugs.filter((b) => b.kind === 'swarm').length).toBeGreaterThanOrEqual(15);
    // most are caught; the equivalent ones say why
    expect(bugs.filter((b) => b.equivalent === undefined).length).toBeGreaterThan(bugs.length * 0.8);
  });

  it('refuses an entry whose text is not in its file exactly once, or that names no check, with the entry named', () => {
    const files = { 'a.ts': 'const x = 1;\nconst y = 1;\n', 'a.test.ts': '' };
    const base = { kind: 'tests', file: 'a.ts', replace: 'const x = 2;', tests: ['a.test.ts'] };
    expect(() => loadPlantedBugs(catalogue([{ ...base, name: 'gone', find: 'const z = 1;' }], files), 'bugs.json')).toThrow(
      new PlantedBugError('bugs.json[0] (gone): its find text occurs 0 times in a.ts (once needed): the code moved; update the entry'),
    );
    expect(() => loadPlantedBugs(catalogue([{ ...base, name: 'twice', find: ' = 1;' }], files), 'bugs.json')).toThrow(/\(twice\): its find text occurs 2 times/);
    expect(() => loadPlantedBugs(catalogue([{ ...base, name: 'x', find: 'const x = 1;', tests: [] }], files), 'bugs.json')).toThrow(/name the tests or the scenario that catch it, or say why it is equivalent or left alone/);
    expect(() => loadPlantedBugs(catalogue([{ ...base, name: 'x', find: 'const x = 1;', tests: ['b.test.ts'] }], files), 'bugs.json')).toThrow(/test file b\.test\.ts does not exist/);
    expect(() => loadPlantedBugs(catalogue([{ ...base, name: 'x', find: 'const x = 1;' }, { ...base, name: 'x', find: 'const y = 1;' }], files), 'bugs.json')).toThrow(/bugs\.json\[1\] \(x\): the name is used twice/);
    expect(() => loadPlantedBugs(catalogue({ not: 'a list' }, files), 'bugs.json')).toThrow(/expected an array/);
  });

  it('plants the bug for the check and puts the original bytes back, also when the check throws', async () => {
    const dir = catalogue([], { 'm.ts': 'export const limit = (n: number) => n <= 10;\n' });
    const bug: PlantedBug = { name: 'off-by-one', kind: 'tests', file: 'm.ts', find: 'n <= 10', replace: 'n < 10', tests: [] };
    const seen = await withBugPlanted(dir, bug, async () => readFileSync(path.join(dir, 'm.ts'), 'utf8'));
    expect(seen).toBe('export const limit = (n: number) => n < 10;\n');
    expect(readFileSync(path.join(dir, 'm.ts'), 'utf8')).toBe('export const limit = (n: number) => n <= 10;\n');
    await expect(
      withBugPlanted(dir, bug, async () => {
        throw new Error('the check failed');
      }),
    ).rejects.toThrow('the check failed');
    expect(readFileSync(path.join(dir, 'm.ts'), 'utf8')).toBe('export const limit = (n: number) => n <= 10;\n');
    // a replacement holding "$&" is written as it is, not as a pattern
    const dollar = await withBugPlanted(dir, { ...bug, replace: "n <= 10 && '$&' !== ''" }, async () => readFileSync(path.join(dir, 'm.ts'), 'utf8'));
    expect(dollar).toContain("'$&'");
  });
});
