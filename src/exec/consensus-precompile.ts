import type { SelectorHashes } from './precompile.js';
import { code, CODE_INVALID_NODEID, CODE_LAST_SEALER, CODE_NO_AUTHORIZED, PrecompiledContract, type CallContext } from './precompile.js';
import { SYS_CONSENSUS, type NodeType } from './system-tables.js';

const NODE_ID = /^[0-9a-f]{128}$/;

/**
 * ConsensusPrecompiled's order: the node id, the last sealer, and the account last, as
 * MemoryTable2's insert, update or remove checks it on the write (so a remove that finds nothing
 * is -50000 for an account off the list, 0 for one on it).
 */
async function change(ctx: CallContext, rawId: unknown, type: NodeType | null): Promise<[bigint]> {
  const nodeId = String(rawId).toLowerCase().replace(/^0x/, '');
  if (!NODE_ID.test(nodeId)) return code(CODE_INVALID_NODEID);
  const next = await ctx.tables.consensusNodes(ctx.number + 1);
  const isSealer = next.sealers.includes(nodeId);
  const isObserver = next.observers.includes(nodeId);
  if (type !== 'sealer' && isSealer && next.sealers.length === 1) return code(CODE_LAST_SEALER);
  if (!(await ctx.tables.mayWrite(SYS_CONSENSUS, ctx.origin, ctx.number))) return code(CODE_NO_AUTHORIZED);
  if (type === null && !isSealer && !isObserver) return code(0);
  await ctx.tables.setNodeType(nodeId, type, ctx.number);
  return code(1);
}

/** 0x1003: group membership; the change applies from the next block. Its gas is its output's memory alone. */
export function consensusPrecompile(hash: SelectorHashes): PrecompiledContract {
  return new PrecompiledContract(
    'Consensus',
    [
      { signature: 'addSealer(string)', outputs: 'code', run: (ctx, [id]) => change(ctx, id, 'sealer') },
      { signature: 'addObserver(string)', outputs: 'code', run: (ctx, [id]) => change(ctx, id, 'observer') },
      { signature: 'remove(string)', outputs: 'code', run: (ctx, [id]) => change(ctx, id, null) },
    ],
    hash,
    false,
    'zero',
  );
}
