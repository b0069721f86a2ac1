// `npx tsx scripts/make-workload-recording.ts [out]`: (re)writes fixtures/chains/workload-small.jsonl.gz,
// the small recording the scenario `replay` workload is shown with (scenarios/replay-traffic.yaml,
// src/sim/scenario/replay-workload.test.ts). A chain built in process (GroupChain: 4 sealers that
// sign each block; ECDSA, 2.11.0, storage state, the default txGasLimit, as a scenario's default
// group) with three senders: deploys, calls whose outputs depend on earlier blocks (Counter's
// running count), reverts with a reason and panics, events. Each block holds at most one
// transaction per sender and per contract, so the order within a block does not change any
// receipt. Blocks and receipts are formatted as the JSON-RPC answers them and written through
// RecordingWriter, exactly as `twinchain record` writes them. Deterministic: same bytes each run.
import { fileURLToPath } from 'node:url';
import { contractBytecode } from '../fixtures/contracts/artifacts.js';
import { GENESIS_DEFAULTS, ProtocolVersion, sortedNodeIds, TransactionBuilder, type GroupGenesis, type Transaction } from '../src/chain/index.js';
import { fromHex, toHexNoPrefix } from '../src/codec/index.js';
import { encodeFunctionCall } from '../src/abi/index.js';
import { getSuite, keccak256 } from '../src/crypto/index.js';
import { GroupChain } from '../src/ledger/index.js';
import { RECORDING_FORMAT, RECORDING_VERSION, RecordingWriter, type JsonObject } from '../src/replay/index.js';
import { formatBlock, formatReceipt } from '../src/rpc/format.js';
import { MemoryStore } from '../src/storage/index.js';

export const WORKLOAD_RECORDING = fileURLToPath(new URL('../fixtures/chains/workload-small.jsonl.gz', import.meta.url));
const GENESIS_TIME = Date.UTC(2026, 0, 1);
const VERSION = '2.11.0';

/** A deterministic byte stream (Park–Miller), for keys and transaction nonces. */
function seeded(seed: number) {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
}

export interface WorkloadRecordingOptions {
  /** blockLimit = the height + this (default 500, as SDKs set it); tests use 1 for transactions that expire at once. */
  readonly blockLimitMargin?: number;
}

export async function writeWorkloadRecording(file = WORKLOAD_RECORDING, options: WorkloadRecordingOptions = {}): Promise<{ blocks: number; transactions: number }> {
  const suite = getSuite('ecdsa');
  const version = ProtocolVersion.parse(VERSION);
  const variant = version.interfaceVariant;
  const sealerKeys = [1, 2, 3, 4].map((i) => suite.generateKeyPair(seeded(5000 + i)));
  const genesis: GroupGenesis = {
    groupId: 1,
    consensusType: 'pbft',
    sealers: sortedNodeIds(sealerKeys.map((k) => toHexNoPrefix(k.publicKey))),
    timestamp: GENESIS_TIME,
    stateType: 'storage',
  };
  const chain = await GroupChain.open({ store: new MemoryStore(), suite, version, genesis });
  const [alice, bob, carol] = [11, 12, 13].map(
    (i) => new TransactionBuilder({ suite, generation: version.txGeneration, key: suite.generateKeyPair(seeded(7000 + i)), random: seeded(9000 + i) }),
  ) as [TransactionBuilder, TransactionBuilder, TransactionBuilder];
  // blockLimit as an SDK sets it: the height it saw + 500
  const margin = options.blockLimitMargin ?? 500;
  const tx = (from: TransactionBuilder, to: Uint8Array | null, data: Uint8Array) => from.build({ to, data, blockLimit: BigInt(chain.height + margin) });
  const call = (from: TransactionBuilder, to: Uint8Array, signature: string, args: unknown[] = []) => tx(from, to, encodeFunctionCall(signature, args, keccak256));

  const block = async (transactions: Transaction[]) => {
    const number = chain.height + 1;
    const sealers = (await chain.executor.consensusNodes(number)).sealers;
    const executed = await chain.execute(
      { number, parentHash: chain.headHash, timestamp: GENESIS_TIME + number * 1000, sealer: number % sealers.length, sealerList: sealers.map((id) => fromHex(id)) },
      transactions,
    );
    const need = sealers.length - Math.floor((sealers.length - 1) / 3);
    const signatures = sealers.slice(0, need).map((id, index) => {
      const key = sealerKeys.find((k) => toHexNoPrefix(k.publicKey) === id)!;
      return { index, signature: suite.signatureToBytes(suite.sign(executed.hash, key)) };
    });
    await chain.commit(signatures);
    return executed.block.receipts.map((r) => r.contractAddress);
  };

  const [hello, counter, reverter] = (await block([
    tx(alice, null, contractBytecode('HelloWorld')),
    tx(bob, null, contractBytecode('Counter')),
    tx(carol, null, contractBytecode('Reverter')),
  ])) as [Uint8Array, Uint8Array, Uint8Array];
  const [emitter] = (await block([tx(alice, null, contractBytecode('EventEmitter')), call(bob, counter, 'increment()'), call(carol, reverter, 'succeed(uint256)', [5n])])) as [Uint8Array];
  await block([call(alice, hello, 'set(string)', ['first']), call(bob, counter, 'incrementBy(uint256)', [41n]), call(carol, reverter, 'revertWithReason(string)', ['recorded no'])]);
  await block([call(alice, emitter, 'emitAll(uint256,string,string)', [7n, 'label', 'text']), call(carol, counter, 'increment()'), call(bob, reverter, 'divide(uint256,uint256)', [1n, 0n])]);
  await block([call(bob, hello, 'set(string)', ['second']), call(alice, counter, 'incrementBy(uint256)', [100n]), call(carol, reverter, 'requireNonZero(uint256)', [0n])]);
  await block([call(carol, emitter, 'emitMany(uint256)', [3n]), call(alice, reverter, 'failAssert()'), call(bob, counter, 'increment()')]);
  // a call to an address without code, then a contract deployed by a sender with earlier transactions
  await block([call(alice, fromHex('0x00000000000000000000000000000000deadbeef'), 'set(string)', ['nobody']), tx(bob, null, contractBytecode('Counter'))]);
  for (let i = 0; i < 4; i++) {
    await block([call(alice, hello, 'set(string)', [`round ${i}`]), call(bob, counter, 'incrementBy(uint256)', [BigInt(i + 1)]), call(carol, reverter, 'succeed(uint256)', [BigInt(i)])]);
  }

  const writer = RecordingWriter.create(file);
  await writer.writeHeader({
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    source: 'scripts/make-workload-recording.ts (in-process chain)',
    recordedAt: '2026-01-01T00:00:00.000Z',
    group: 1,
    clientVersion: { 'FISCO-BCOS Version': VERSION, 'Supported Version': VERSION, 'Chain Id': '1' },
    supportedVersion: VERSION,
    chainId: '1',
    interfaceVariant: variant,
    suite: 'ecdsa',
    stateType: 'storage',
    genesis: formatBlock((await chain.ledger.blockByNumber(0))!, true, variant),
    config: { txCountLimit: String(GENESIS_DEFAULTS.txCountLimit), txGasLimit: String(GENESIS_DEFAULTS.txGasLimit), sealers: genesis.sealers, observers: [] },
    from: 1,
  });
  let transactions = 0;
  for (let number = 1; number <= chain.height; number++) {
    const stored = (await chain.ledger.blockByNumber(number))!;
    const receipts: JsonObject[] = [];
    for (let i = 0; i < stored.block.transactions.length; i++) receipts.push(formatReceipt((await chain.ledger.transactionAt(number, i))!, variant));
    transactions += receipts.length;
    await writer.writeBlock({ number, block: formatBlock(stored, true, variant), receipts });
  }
  await writer.end();
  return { blocks: chain.height, transactions };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? WORKLOAD_RECORDING;
  const { blocks, transactions } = await writeWorkloadRecording(out);
  console.log(`wrote ${out}: ${blocks} blocks, ${transactions} transactions`);
}
