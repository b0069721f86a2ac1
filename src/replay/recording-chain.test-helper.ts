// Test recordings without a recorder: a chain built in process (GroupChain, several sealers that
// sign each block, a user sending deploys, calls, reverts, events, a system-config change and
// consensus precompile calls), its blocks and receipts formatted exactly as the RPC answers them
// (src/rpc/format.ts, in the chain's interface variant) and written through RecordingWriter.
import { readFileSync } from 'node:fs';
import { ProtocolVersion, sortedNodeIds, TransactionBuilder, type GroupGenesis, type Transaction } from '../chain/index.js';
import { fromHex, toHexNoPrefix } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256, type KeyPair, type SuiteName } from '../crypto/index.js';
import { GroupChain } from '../ledger/index.js';
import { formatBlock, formatReceipt } from '../rpc/format.js';
import { MemoryStore } from '../storage/index.js';
import { RECORDING_FORMAT, RECORDING_VERSION, RecordingWriter, type JsonObject, type RecordedBlock, type RecordingHeader } from './recording.js';

export function seeded(seed: number) {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
}

function bytecode(name: string): Uint8Array {
  const artifact = JSON.parse(readFileSync(new URL(`../../fixtures/contracts/artifacts/${name}.json`, import.meta.url), 'utf8')) as { bytecode: string };
  return fromHex(artifact.bytecode);
}

export const GENESIS_TIME = Date.UTC(2026, 0, 1);
const SYSTEM_CONFIG = fromHex('0x0000000000000000000000000000000000001000');
const CONSENSUS = fromHex('0x0000000000000000000000000000000000001003');

export interface TestChainOptions {
  readonly suite?: SuiteName;
  readonly stateType?: 'storage' | 'mpt';
  readonly version?: string;
  /** Extra blocks of HelloWorld.set / Counter.increment calls after the scenario, `txPerBlock` each. */
  readonly loadBlocks?: number;
  readonly txPerBlock?: number;
}

/** A chain of 4 sealers (a 5th joins by addSealer), recorded as the RPC answers. */
export class TestChain {
  readonly suite;
  readonly version;
  readonly variant;
  private readonly keys: KeyPair[];
  private readonly user: TransactionBuilder;
  private constructor(
    readonly chain: GroupChain,
    readonly genesis: GroupGenesis,
    readonly options: TestChainOptions,
    keys: KeyPair[],
  ) {
    this.suite = getSuite(options.suite ?? 'ecdsa');
    this.version = ProtocolVersion.parse(options.version ?? '2.11.0');
    this.variant = this.version.interfaceVariant;
    this.keys = keys;
    this.user = new TransactionBuilder({ suite: this.suite, generation: this.version.txGeneration, key: this.suite.generateKeyPair(seeded(77)), random: seeded(99) });
  }

  static async create(options: TestChainOptions = {}): Promise<TestChain> {
    const suite = getSuite(options.suite ?? 'ecdsa');
    const version = ProtocolVersion.parse(options.version ?? '2.11.0');
    const keys = [1, 2, 3, 4, 5].map((i) => suite.generateKeyPair(seeded(1000 + i)));
    const genesis: GroupGenesis = {
      groupId: 1,
      consensusType: 'pbft',
      // sorted, as the genesis mark lists them from 2.9.0 (the order the genesis rows are written in)
      sealers: sortedNodeIds(keys.slice(0, 4).map((k) => toHexNoPrefix(k.publicKey))),
      timestamp: GENESIS_TIME,
      stateType: options.stateType ?? 'storage',
    };
    const chain = await GroupChain.open({ store: new MemoryStore(), suite, version, genesis });
    return new TestChain(chain, genesis, options, keys);
  }

  get fifthNodeId(): string {
    return toHexNoPrefix(this.keys[4]!.publicKey);
  }

  tx(to: Uint8Array | null, data: Uint8Array): Transaction {
    return this.user.build({ to, data, blockLimit: BigInt(this.chain.height + 500) });
  }

  /** A call of a fixture contract: its artifacts are compiled with keccak selectors, on SM chains too. */
  call(to: Uint8Array, signature: string, args: unknown[] = []): Transaction {
    return this.tx(to, encodeFunctionCall(signature, args, keccak256));
  }

  /** A call of a system precompile, which dispatches on the chain's hash (SM3 selectors on SM chains). */
  system(to: Uint8Array, signature: string, args: unknown[] = []): Transaction {
    return this.tx(to, encodeFunctionCall(signature, args, (d) => this.suite.hash(d)));
  }

  /** Execute and commit the next block, signed by the first n − f sealers in force (the quorum, no more). */
  async block(transactions: Transaction[]): Promise<{ number: number; receipts: { status: number; contractAddress: Uint8Array }[] }> {
    const number = this.chain.height + 1;
    const nodes = await this.chain.executor.consensusNodes(number);
    const sealers = nodes.sealers;
    const executed = await this.chain.execute(
      {
        number,
        parentHash: this.chain.headHash,
        timestamp: GENESIS_TIME + number * 1000,
        sealer: number % sealers.length,
        sealerList: sealers.map((id) => fromHex(id)),
      },
      transactions,
    );
    const n = sealers.length;
    const need = n - Math.floor((n - 1) / 3);
    const signatures = sealers.slice(0, need).map((id, index) => {
      const key = this.keys.find((k) => toHexNoPrefix(k.publicKey) === id)!;
      return { index, signature: this.suite.signatureToBytes(this.suite.sign(executed.hash, key)) };
    });
    await this.chain.commit(signatures);
    return { number, receipts: executed.block.receipts.map((r) => ({ status: r.status, contractAddress: r.contractAddress })) };
  }

  /**
   * The scenario: deploys (HelloWorld, EventEmitter, Reverter, Counter); calls with events and
   * reverts; tx_count_limit set through 0x1000; the 5th node added as observer then sealer
   * through 0x1003 (n = 5 from then on); more calls, a call to an address without code.
   */
  async runScenario(): Promise<void> {
    const deployed = await this.block([
      this.tx(null, bytecode('HelloWorld')),
      this.tx(null, bytecode('EventEmitter')),
      this.tx(null, bytecode('Reverter')),
      this.tx(null, bytecode('Counter')),
    ]);
    const [hello, emitter, reverter, counter] = deployed.receipts.map((r) => r.contractAddress) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    this.contracts = { hello, counter };
    await this.block([
      this.call(hello, 'set(string)', ['replayed']),
      this.call(emitter, 'emitAll(uint256,string,string)', [7n, 'label', 'text']),
      this.call(emitter, 'emitMany(uint256)', [3n]),
      this.call(reverter, 'revertWithReason(string)', ['no']),
      this.call(reverter, 'requireNonZero(uint256)', [0n]),
      this.call(counter, 'increment()'),
    ]);
    await this.block([this.system(SYSTEM_CONFIG, 'setValueByKey(string,string)', ['tx_count_limit', '500'])]);
    await this.block([this.system(CONSENSUS, 'addObserver(string)', [this.fifthNodeId])]);
    await this.block([this.system(CONSENSUS, 'addSealer(string)', [this.fifthNodeId]), this.call(counter, 'incrementBy(uint256)', [5n])]);
    await this.block([
      this.call(counter, 'incrementBy(uint256)', [2n]),
      this.call(reverter, 'divide(uint256,uint256)', [1n, 0n]),
      this.call(reverter, 'failAssert()'),
      this.call(fromHex('0x00000000000000000000000000000000deadbeef'), 'set(string)', ['nobody']),
      this.call(emitter, 'emitAll(uint256,string,string)', [8n, 'again', 'more']),
    ]);
    const perBlock = this.options.txPerBlock ?? 5;
    for (let b = 0; b < (this.options.loadBlocks ?? 0); b++) {
      const txs: Transaction[] = [];
      for (let i = 0; i < perBlock; i++) txs.push(i % 2 === 0 ? this.call(hello, 'set(string)', [`v${b}.${i}`]) : this.call(counter, 'increment()'));
      await this.block(txs);
    }
  }

  contracts: { hello: Uint8Array; counter: Uint8Array } | undefined;

  /** Block 0 and the header, as the recorder writes them. */
  async header(): Promise<RecordingHeader> {
    const genesis = (await this.chain.ledger.blockByNumber(0))!;
    return {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      source: 'in-process test chain',
      recordedAt: '2026-01-02T00:00:00.000Z',
      group: 1,
      clientVersion: { 'FISCO-BCOS Version': this.version.text, 'Supported Version': this.version.text },
      supportedVersion: this.version.text,
      chainId: '1',
      interfaceVariant: this.variant,
      suite: this.suite.name,
      stateType: this.genesis.stateType ?? 'storage',
      genesis: formatBlock(genesis, true, this.variant),
      config: { sealers: this.genesis.sealers, observers: [] },
      from: 1,
    };
  }

  async recordedBlock(number: number): Promise<RecordedBlock> {
    const stored = (await this.chain.ledger.blockByNumber(number))!;
    const receipts: JsonObject[] = [];
    for (let i = 0; i < stored.block.transactions.length; i++) receipts.push(formatReceipt((await this.chain.ledger.transactionAt(number, i))!, this.variant));
    return { number, block: formatBlock(stored, true, this.variant), receipts };
  }

  /** Write the whole chain (blocks 1 … height) to a recording file. */
  async record(file: string): Promise<void> {
    const writer = RecordingWriter.create(file);
    await writer.writeHeader(await this.header());
    for (let n = 1; n <= this.chain.height; n++) await writer.writeBlock(await this.recordedBlock(n));
    await writer.end();
  }
}

/** Every check that must have run (and passed) in a full later-variant replay. */
export const LATER_CHECKS = [
  'genesis hash',
  'parentHash',
  'tx hash',
  'tx sender (signature)',
  'transactionsRoot',
  'receipt transactionHash',
  'receipt status',
  'receipt output',
  'receipt logs',
  'receipt gasUsed',
  'receipt contractAddress',
  'receipt logsBloom',
  'receipt root',
  'receiptsRoot',
  'stateRoot',
  'dbHash',
  'logsBloom',
  'block hash',
  'sealerList',
  'signatures',
  'signature quorum',
];
