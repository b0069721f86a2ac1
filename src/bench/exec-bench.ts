import { performance } from 'node:perf_hooks';
import { contractBytecode } from '../fixture-contracts.js';
import { ProtocolVersion, TransactionBuilder, type Transaction } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { BlockExecutor } from '../exec/index.js';
import { openGroupState } from '../ledger/index.js';
import { MemoryStore } from '../storage/index.js';
import type { BenchIo } from './bench-io.js';
import { formatRate, table, verdict } from './measure.js';
import { cpuNow, cpuSince, type CpuSample } from './thread-cpu.js';
import { helloWorldSet, rawHelloWorldCalls } from './raw-evm.js';

const BLOCK_SIZE = 1000;
const BLOCKS = 4;
const SENDERS = 50;

function seeded(seed: number) {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
}

/**
 * Executor throughput on one core: HelloWorld set(string) blocks, signed up front, committed per
 * block, on FISCO's storage state or the trie.
 */
export async function measureExecutor(stateType: 'storage' | 'mpt' = 'mpt'): Promise<{ rate: number; seconds: number; failed: number; cpu: CpuSample }> {
  const suite = getSuite('ecdsa');
  const version = ProtocolVersion.parse('2.11.0');
  const store = new MemoryStore();
  const sealers = [1, 2, 3, 4].map((i) => toHex(suite.generateKeyPair(seeded(i)).publicKey).slice(2));
  const genesis = { groupId: 1, consensusType: 'pbft', sealers, timestamp: 0, stateType } as const;
  const state = await openGroupState(genesis, store, suite, version);
  const executor = new BlockExecutor(state, suite, version);
  await executor.applyGenesis(genesis, (w) => store.batch(w));
  const builders = Array.from({ length: SENDERS }, (_, i) => new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(seeded(100 + i)), random: seeded(900 + i) }));

  let number = 0;
  let parentHash: Uint8Array = new Uint8Array(32);
  const commitBlock = async (txs: Transaction[]) => {
    const executed = await executor.execute({ number: ++number, parentHash, timestamp: number * 1000, sealer: 0, sealerList: [] }, txs);
    await executor.commit((w) => store.batch(w, { sync: true }));
    parentHash = executed.hash;
    return executed;
  };
  const deployed = await commitBlock([builders[0]!.build({ data: contractBytecode('HelloWorld'), blockLimit: 100n })]);
  const contract = deployed.block.receipts[0]!.contractAddress;
  const calldata = helloWorldSet;

  // Signed transactions prepared up front: signing and admission-time verification are not executor work.
  const blocks = Array.from({ length: BLOCKS }, (_, b) =>
    Array.from({ length: BLOCK_SIZE }, (_, i) => builders[i % SENDERS]!.build({ to: contract, data: calldata(b * BLOCK_SIZE + i), blockLimit: 500n })),
  );
  await commitBlock(blocks[0]!.slice(0, 50)); // warm-up
  const cpuBefore = cpuNow();
  const start = performance.now();
  let failed = 0;
  for (const txs of blocks) {
    const executed = await commitBlock(txs);
    failed += executed.block.receipts.filter((r) => r.status !== 0).length;
  }
  const seconds = (performance.now() - start) / 1000;
  return { rate: (BLOCKS * BLOCK_SIZE) / seconds, seconds, failed, cpu: cpuSince(cpuBefore) };
}

export async function run(io: BenchIo): Promise<void> {
  const { rate: executorRate, seconds: executorSeconds, failed: trieFailed } = await measureExecutor('mpt');
  const storage = await measureExecutor('storage');
  const failed = trieFailed + storage.failed;

  // Raw ethereumjs on the same calls: one EVM, Caches, one checkpoint per 1000 calls, root per block.
  const rawMs = await rawHelloWorldCalls(
    Array.from({ length: BLOCKS }, () => BLOCK_SIZE),
    Array.from({ length: SENDERS }, (_, i) => getSuite('ecdsa').address(getSuite('ecdsa').generateKeyPair(seeded(100 + i)).publicKey)),
    helloWorldSet,
  );
  const rawSeconds = rawMs / 1000;
  const rawRate = (BLOCKS * BLOCK_SIZE) / rawSeconds;

  io.out(`exec: ${BLOCKS} blocks of ${BLOCK_SIZE} signed HelloWorld set(string) transactions from ${SENDERS} senders, one core\n`);
  io.out(
    table(
      ['path', 'tx/s', 'seconds', 'target'],
      [
        ['executor, trie (receipts, roots, commit per block)', formatRate(executorRate), executorSeconds.toFixed(2), verdict(executorRate, 2000)],
        ['executor, storage state (dbHash per block)', formatRate(storage.rate), storage.seconds.toFixed(2), ''],
        ['storage state / trie', `${(storage.rate / executorRate).toFixed(2)}×`, '', storage.rate / executorRate >= 1.5 ? 'meets ≥ 1.5×' : 'BELOW 1.5×'],
        ['raw evm.runCall (same calls, root per block)', formatRate(rawRate), rawSeconds.toFixed(2), 'reference'],
        ['executor (trie) / raw', `${((executorRate / rawRate) * 100).toFixed(0)}%`, '', executorRate / rawRate >= 0.5 ? 'meets ≥ 50%' : 'BELOW 50%'],
      ],
    ),
  );
  if (failed > 0) io.out(`WARNING: ${failed} transactions failed`);
}
