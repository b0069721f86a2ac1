import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts', 'fixtures/**/*.test.ts', 'eslint/**/*.test.js'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
