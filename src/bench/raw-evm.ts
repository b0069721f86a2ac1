import { performance } from 'node:perf_hooks';
import { createEVM } from '@ethereumjs/evm';
import { createMPT } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import { contractBytecode } from '../fixture-contracts.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256 } from '../crypto/index.js';
import { withStockInterpreter } from '../exec/index.js';
import { createFiscoCommon } from '../state/index.js';

/** Calldata of HelloWorld.set(string) with a distinct string per index. */
export const helloWorldSet = (i: number): Uint8Array => encodeFunctionCall('set(string)', [`Hello, FISCO BCOS #${i}`], keccak256);

/**
 * Plain ethereumjs on HelloWorld.set calls, with none of Twinchain around it (not even its
 * interpreter speed-ups): one EVM over a MerkleStateManager with Caches, a checkpoint, the calls,
 * a commit and a state root per block. Returns the wall milliseconds of the blocks (deployment
 * and warm-up excluded).
 */
export function rawHelloWorldCalls(blocks: ReadonlyArray<number>, callers: ReadonlyArray<Uint8Array>, calldata: (i: number) => Uint8Array = helloWorldSet): Promise<number> {
  return withStockInterpreter(() => timeCalls(blocks, callers, calldata));
}

async function timeCalls(blocks: ReadonlyArray<number>, callers: ReadonlyArray<Uint8Array>, calldata: (i: number) => Uint8Array): Promise<number> {
  const common = createFiscoCommon();
  const trie = await createMPT({ useKeyHashing: true, common });
  const sm = new MerkleStateManager({ common, trie, caches: new Caches() });
  const evm = await createEVM({ common, stateManager: sm });
  const senders = callers.map((c) => new Address(c));
  await sm.putAccount(senders[0]!, new Account(0n, 0n));
  const created = await evm.runCall({ caller: senders[0]!, data: contractBytecode('HelloWorld'), gasLimit: 30_000_000n });
  const target = created.createdAddress!;
  await sm.getStateRoot();
  let call = 0;
  const runBlock = async (size: number) => {
    await sm.checkpoint();
    for (let i = 0; i < size; i++, call++) {
      const r = await evm.runCall({ caller: senders[call % senders.length]!, to: target, data: calldata(call), gasLimit: 300_000_000n, skipNonceIncrement: true });
      if (r.execResult.exceptionError) throw new Error(`raw call failed: ${r.execResult.exceptionError.error}`);
    }
    await sm.commit();
    await sm.getStateRoot();
  };
  await runBlock(20); // warm-up
  const start = performance.now();
  for (const size of blocks) await runBlock(size);
  return performance.now() - start;
}
