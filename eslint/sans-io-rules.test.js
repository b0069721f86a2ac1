import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layerRule } from './layer-rule.js';
import { protocolFolders, sansIoRules } from './sans-io-rules.js';

const linter = new Linter({ configType: 'flat', cwd: '/repo' });
const config = [
  { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { twinchain: { rules: { layers: layerRule } } }, rules: { 'twinchain/layers': 'error' } },
  { files: protocolFolders.map((f) => `src/${f}/**/*.ts`), ignores: ['**/*.test.ts'], rules: sansIoRules },
];

const lint = (code, file) => linter.verify(code, config, { filename: `/repo/${file}` }).map((m) => m.message);

describe('sans-IO lint rules', () => {
  const forbidden = [
    'const t = Date.now();',
    'const d = new Date();',
    'const d = Date();',
    'const r = Math.random();',
    'setTimeout(() => {}, 10);',
    'setInterval(() => {}, 10);',
    'const p = performance.now();',
    "import crypto from 'node:crypto'; crypto.randomBytes(4);",
    "import { randomBytes } from 'node:crypto';",
    "import { setTimeout as sleep } from 'node:timers/promises';",
    'const h = process.hrtime();',
  ];

  it.each(forbidden)('reports %s in every protocol folder', (code) => {
    for (const folder of protocolFolders) {
      const messages = lint(code, `src/${folder}/x.ts`);
      expect(messages.some((m) => m.includes('sans-IO'))).toBe(true);
    }
  });

  it.each(forbidden)('allows %s outside protocol folders and in tests', (code) => {
    expect(lint(code, 'src/runtime/real/clock.ts')).toEqual([]);
    expect(lint(code, 'src/consensus/pbft.test.ts')).toEqual([]);
  });

  it('allows a dated constant', () => {
    expect(lint('const d = new Date(0);', 'src/node/x.ts')).toEqual([]);
  });
});

describe('layer rule', () => {
  it('forbids importing a higher layer', () => {
    expect(lint("import { x } from '../chain/index.js';", 'src/codec/a.ts')).toEqual([
      'src/codec must not import src/chain (layer table in DESIGN.md)',
    ]);
  });

  it('forbids reaching into another folder past its index', () => {
    expect(lint("import { x } from '../codec/hex.js';", 'src/chain/a.ts')[0]).toContain('through its index.js');
    expect(lint("import { x } from '../codec/index.js';", 'src/chain/a.ts')).toEqual([]);
  });

  it('lets tests reach internals of layers they may import', () => {
    expect(lint("import { x } from '../codec/hex.js';", 'src/chain/a.test.ts')).toEqual([]);
  });

  it('allows imports inside a folder', () => {
    expect(lint("import { x } from './block.js';", 'src/chain/a.ts')).toEqual([]);
  });
});
