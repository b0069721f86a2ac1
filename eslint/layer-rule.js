// ESLint rule enforcing the layer table of DESIGN.md: which src/ folder may import which,
// and that a folder is entered through its index.ts only.
import path from 'node:path';

/** For each layer under src/, the layers it may import (besides itself). */
export const allowedImports = {
  codec: [],
  abi: ['codec'],
  storage: ['codec'],
  crypto: ['codec'],
  chain: ['codec', 'crypto'],
  state: ['codec', 'crypto', 'chain', 'storage'],
  exec: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state'],
  ledger: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec'],
  txpool: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger'],
  consensus: ['codec', 'crypto', 'chain'],
  sync: ['codec', 'crypto', 'chain'],
  runtime: ['codec', 'crypto', 'chain', 'storage'],
  node: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger', 'txpool', 'consensus', 'sync', 'runtime'],
  rpc: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger', 'txpool', 'consensus', 'sync', 'runtime', 'node'],
  sim: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger', 'txpool', 'consensus', 'sync', 'runtime', 'node', 'rpc', 'report', 'replay'],
  host: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger', 'txpool', 'consensus', 'sync', 'runtime', 'node', 'rpc', 'channel'],
  deploy: ['codec', 'crypto', 'chain', 'runtime'],
  replay: ['codec', 'abi', 'crypto', 'chain', 'storage', 'state', 'exec', 'ledger', 'runtime', 'rpc'],
  conformance: ['codec', 'abi', 'crypto', 'chain', 'rpc'],
  channel: ['codec', 'crypto', 'chain', 'storage', 'runtime', 'node', 'rpc'],
  report: ['codec'],
  solidity: [],
  console: ['codec', 'abi', 'crypto', 'chain', 'channel', 'solidity', 'host'],
  bench: '*',
  cli: '*',
  mutants: [],
};

function layerOf(file, srcRoot) {
  const rel = path.relative(srcRoot, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const [first, ...rest] = rel.split(path.sep);
  return rest.length === 0 ? undefined : first;
}

export const layerRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the layer table of DESIGN.md and index-only entry into other folders' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const srcRoot = path.join(context.cwd, 'src');
    const from = layerOf(file, srcRoot);
    if (!from) return {};
    const isTest = file.endsWith('.test.ts') || file.endsWith('.test-helper.ts');

    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const to = layerOf(target, srcRoot);
      if (!to || to === from) return;
      const allowed = allowedImports[from];
      if (allowed === undefined) {
        context.report({ node, message: `src/${from} is not in the layer table (eslint/layer-rule.js); add it there` });
        return;
      }
      if (allowed !== '*' && !allowed.includes(to)) {
        context.report({ node, message: `src/${from} must not import src/${to} (layer table in DESIGN.md)` });
        return;
      }
      if (!isTest && path.basename(target) !== 'index.js') {
        context.report({
          node,
          message: `import src/${to} through its index.js, not ${path.relative(srcRoot, target)} (a folder's internals stay private)`,
        });
      }
    }

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};
