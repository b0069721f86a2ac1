import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that start real processes (node chains, the packed package, the README's examples, the
 * Docker image where a daemon runs): run one at a time after everything else, so two real chains
 * never share the two cores with each other or with the rest of the suite (a start_all.sh
 * waiting 60 s for a starved node).
 */
const PROCESSES = ['test/real/**/*.test.ts', 'test/package/**/*.test.ts', 'test/readme.test.ts', 'test/examples.test.ts', 'test/deploy/docker-image.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // the last lines of npm test: what was skipped and why (never silently), and any write into reports/
    reporters: ['default', './test/support/skip-summary-reporter.ts'],
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'fixtures/**/*.test.ts', 'eslint/**/*.test.js'],
          exclude: [...PROCESSES, '**/node_modules/**'],
          // vitest's default (cores - 1) runs these one file at a time on 2 cores: 2 at a time took
          // 245 s instead of about 340 (each file's import is single-threaded work)
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESSES,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
