import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that start real processes (node chains, the packed package, the README's examples, the
 * Docker image where a daemon runs): run after everything else, so a real chain never shares the
 * cores with the in-process suite (a start_all.sh once waited 60 s for a starved node), and two
 * at a time: they spend most of their time waiting on their nodes (timers, sockets), and on an
 * idle 2-core machine two at a time took 181 s against 264 s one at a time (2026-11-30).
 */
const PROCESSES = ['test/real/**/*.test.ts', 'test/package/**/*.test.ts', 'test/readme.test.ts', 'test/examples.test.ts', 'test/deploy/docker-image.test.ts'];

/**
 * In-process files that need a module graph of their own: a vi.mock of a module others import
 * (ecdsa-fallback), fake timers on the global clock (real-clock). The other in-process files share
 * one per worker (isolate: false): each file used to import the whole stack again, about 130 s of the
 * suite on 2 cores.
 */
const ISOLATED = ['src/crypto/ecdsa-fallback.test.ts', 'src/runtime/real/real-clock.test.ts'];
const IN_PROCESS = ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'fixtures/**/*.test.ts', 'eslint/**/*.test.js'];
// vitest's default (cores - 1) runs these one file at a time on 2 cores: 2 at a time took
// 245 s instead of about 340 (each file's import is single-threaded work)
const IN_PROCESS_WORKERS = Math.max(2, availableParallelism() - 1);

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
          include: IN_PROCESS,
          exclude: [...PROCESSES, ...ISOLATED, '**/node_modules/**'],
          isolate: false,
          maxWorkers: IN_PROCESS_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          maxWorkers: IN_PROCESS_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESSES,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
