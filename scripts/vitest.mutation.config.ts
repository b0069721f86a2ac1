import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { TEST_FILES, testFileRank } from '../src/mutants/mutation-targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the files in TEST_FILES' order, cheapest first: a mutant's run stops at its first failing test. */
class CheapestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => testFileRank(path.relative(root, f.moduleId).split(path.sep).join('/'));
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * The vitest configuration StrykerJS runs the mutants with (`npm run mutation`, docs/mutation.md):
 * the test selection of src/mutants/mutation-targets.ts in one project, cheapest files first.
 * StrykerJS runs one vitest worker per test-runner process and `--jobs` processes at once.
 */
export default defineConfig({
  root,
  test: {
    include: [...TEST_FILES],
    exclude: ['**/node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    sequence: { sequencer: CheapestFirst },
    // one module graph per run: isolated, each file of each mutant's run imported the whole stack
    // again (1.8 times as long, same outcome for every mutant: docs/mutation.md, How long)
    isolate: false,
  },
});
