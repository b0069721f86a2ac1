import { readFileSync } from 'node:fs';
import { Address } from '@ethereumjs/util';
import {
  ProtocolVersion,
  TransactionBuilder,
  type GroupGenesis,
  type Receipt,
  type Transaction,
} from '../chain/index.js';
import { fromHex, rlpEncode, bigintToBytes, toHex, concatBytes } from '../codec/index.js';
import { decodeAbi, encodeFunctionCall } from '../abi/index.js';
import { getSuite, type KeyPair, type SuiteName } from '../crypto/index.js';
import { StorageWorldState, WorldState, type GroupState } from '../state/index.js';
import { MemoryStore } from '../storage/index.js';
import { BlockExecutor, type ExecutedBlock } from './block-executor.js';

export interface Artifact {
  abi: unknown[];
  bytecode: string;
}

export function artifact(name: string): Artifact {
  return JSON.parse(readFileSync(new URL(`../../fixtures/contracts/artifacts/${name}.json`, import.meta.url), 'utf8')) as Artifact;
}

export function seeded(seed: number) {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
}

/** Init code that deploys `runtime` verbatim (for raw-bytecode tests). */
export function deployCodeFor(runtime: Uint8Array): Uint8Array {
  const n = runtime.length;
  if (n > 255) throw new Error('runtime too long for this helper');
  // PUSH1 n PUSH1 12 PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN, then the runtime
  return concatBytes(Uint8Array.of(0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xf3), runtime);
}

export const GENESIS_TIME = Date.UTC(2026, 0, 1);

export interface HarnessOptions {
  suite?: SuiteName;
  version?: string;
  genesis?: Partial<GroupGenesis>;
  /** The world state: Twinchain's trie (default) or FISCO's storage state. */
  stateType?: 'mpt' | 'storage';
}

/** An executor on a fresh in-memory state with a genesis, and helpers to run blocks. */
export async function harness(options: HarnessOptions = {}) {
  const suite = getSuite(options.suite ?? 'ecdsa');
  const version = ProtocolVersion.parse(options.version ?? '2.11.0');
  const store = new MemoryStore();
  const sealerKeys = [1, 2, 3, 4].map((i) => suite.generateKeyPair(seeded(1000 + i)));
  const genesis: GroupGenesis = {
    groupId: 1,
    consensusType: 'pbft',
    sealers: sealerKeys.map((k) => toHex(k.publicKey).slice(2)),
    timestamp: GENESIS_TIME,
    ...(options.stateType ? { stateType: options.stateType } : {}),
    ...options.genesis,
  };
  // FISCO's storage state with the rules of `version`, as the ledger's openGroupState opens it
  const state: GroupState =
    options.stateType === 'storage'
      ? await StorageWorldState.open({
          store,
          dbHash: { rule: version.atLeast('2.5.0') ? 'v2.5' : 'v2.4', hash: (d) => suite.hash(d), sm: suite.name === 'sm' },
          accounts: { binaryCode: version.atLeast('2.4.0'), binaryCodeHash: version.atLeast('2.5.0'), tableNames: version.tableNames },
        })
      : await WorldState.open({ store });
  const executor = new BlockExecutor(state, suite, version);
  await executor.applyGenesis(genesis, (w) => store.batch(w, { sync: true }));
  let number = 0;
  let parentHash: Uint8Array = new Uint8Array(32);
  const keys = new Map<number, KeyPair>();
  const builders = new Map<number, TransactionBuilder>();
  const account = (i: number) => {
    let b = builders.get(i);
    if (!b) {
      const key = suite.generateKeyPair(seeded(i + 1));
      keys.set(i, key);
      b = new TransactionBuilder({ suite, generation: version.txGeneration, key, random: seeded(500 + i) });
      builders.set(i, b);
    }
    return b;
  };
  const h = {
    suite,
    version,
    store,
    state,
    executor,
    genesis,
    get number() {
      return number;
    },
    account,
    key: (i: number) => (account(i), keys.get(i)!),
    /** A signed transaction from account i. */
    tx(i: number, to: Uint8Array | null, data: Uint8Array): Transaction {
      return account(i).build({ to, data, blockLimit: BigInt(number + 500) });
    },
    callData: (signature: string, args: unknown[] = []) => encodeFunctionCall(signature, args, (d) => suite.hash(d)),
    /** Execute and commit the next block. */
    async block(txs: Transaction[]): Promise<ExecutedBlock> {
      const executed = await executor.execute(
        { number: number + 1, parentHash, timestamp: GENESIS_TIME + (number + 1) * 1000, sealer: 0, sealerList: sealerKeys.map((k) => k.publicKey) },
        txs,
      );
      await executor.commit((w) => store.batch(w, { sync: true }));
      number++;
      parentHash = executed.hash;
      return executed;
    },
    async run(i: number, to: Uint8Array | null, data: Uint8Array): Promise<Receipt> {
      return (await h.block([h.tx(i, to, data)])).block.receipts[0]!;
    },
    async deploy(i: number, name: string, constructorArgs = new Uint8Array(0)): Promise<Uint8Array> {
      const receipt = await h.run(i, null, concatBytes(fromHex(artifact(name).bytecode), constructorArgs));
      if (receipt.status !== 0) throw new Error(`deploying ${name} failed with status ${receipt.status}`);
      return receipt.contractAddress;
    },
    async call(to: Uint8Array, signature: string, args: unknown[], outputs: string, from = 0) {
      const result = await executor.call({ from: account(from).address, to, data: h.callData(signature, args) }, number);
      if (result.status !== 0) throw new Error(`call ${signature} failed with status ${result.status}`);
      return decodeAbi(outputs, result.output);
    },
    /** The CREATE address FISCO derives from (sender, nonce) with the chain's hash. */
    createAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
      return suite.hash(rlpEncode([sender, bigintToBytes(nonce)])).subarray(12);
    },
    async nonce(address: Uint8Array): Promise<bigint> {
      return (await (await executor.committedView()).getAccount(new Address(address)))?.nonce ?? 0n;
    },
  };
  return h;
}

export type Harness = Awaited<ReturnType<typeof harness>>;
