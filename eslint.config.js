import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerRule } from './eslint/layer-rule.js';

import { protocolFolders, sansIoRules } from './eslint/sans-io-rules.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'fixtures/**/*.json', 'dist/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { twinchain: { rules: { layers: layerRule } } },
    rules: {
      'twinchain/layers': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: protocolFolders.map((f) => `src/${f}/**/*.ts`),
    ignores: ['**/*.test.ts'],
    rules: sansIoRules,
  },
  {
    // the simulator must be as deterministic as the protocol code it runs; its wall clock for
    // paced runs comes from src/runtime/real
    files: ['src/runtime/sim/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: sansIoRules,
  },
  {
    // Node.js scripts (the examples, and a README example a user saves in the clone)
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ignores: ['src/report/report-page.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        structuredClone: 'readonly',
      },
    },
  },
  {
    // runs in the browser, inlined into every report beside Chart.js' UMD bundle
    files: ['src/report/report-page.js'],
    languageOptions: {
      sourceType: 'script',
      ecmaVersion: 2020,
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', Chart: 'readonly' },
    },
  },
);
