// The sans-IO rule of DESIGN.md as ESLint rules: protocol code takes time, timers and
// randomness from the Env ports, never from the process.

/** Folders whose code must stay sans-IO. */
export const protocolFolders = ['chain', 'state', 'exec', 'ledger', 'txpool', 'consensus', 'sync', 'node'];

const message = 'protocol code is sans-IO: take time, timers and randomness from the Env ports';

export const sansIoRules = {
  'no-restricted-globals': [
    'error',
    ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'performance'].map((name) => ({
      name,
      message,
    })),
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message },
    { object: 'Math', property: 'random', message },
    { object: 'performance', property: 'now', message },
    { object: 'crypto', property: 'randomBytes', message },
    { object: 'crypto', property: 'getRandomValues', message },
    { object: 'crypto', property: 'randomUUID', message },
    { object: 'process', property: 'hrtime', message },
    { object: 'globalThis', property: 'setTimeout', message },
    { object: 'globalThis', property: 'setInterval', message },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message },
    { selector: "CallExpression[callee.name='Date']", message },
  ],
  'no-restricted-imports': [
    'error',
    {
      paths: ['node:crypto', 'crypto'].map((name) => ({
        name,
        importNames: ['randomBytes', 'randomInt', 'randomUUID', 'randomFillSync', 'getRandomValues', 'webcrypto'],
        message,
      })),
      patterns: [{ group: ['node:timers', 'node:timers/*', 'timers', 'timers/*', 'node:perf_hooks', 'perf_hooks'], message }],
    },
  ],
};
