import { ProtocolVersion, TransactionBuilder, type GroupGenesis, type Transaction } from '../chain/index.js';
import { concatBytes, fromHex, toHex } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { getSuite, type SuiteName } from '../crypto/index.js';
import { artifact, GENESIS_TIME, seeded } from '../exec/exec-harness.test-helper.js';
import type { KvStore } from '../storage/index.js';
import { GroupChain } from './group-chain.js';

export const sealerKeys = (suite: SuiteName) => [1, 2, 3, 4].map((i) => getSuite(suite).generateKeyPair(seeded(2000 + i)));

export function testGenesis(suite: SuiteName = 'ecdsa', extra: Partial<GroupGenesis> = {}): GroupGenesis {
  return { groupId: 1, consensusType: 'pbft', sealers: sealerKeys(suite).map((k) => toHex(k.publicKey).slice(2)), timestamp: GENESIS_TIME, ...extra };
}

/** A GroupChain plus helpers to build, sign and commit blocks as a sealer set would. */
export async function chainOn(store: KvStore, options: { suite?: SuiteName; version?: string; genesis?: GroupGenesis } = {}) {
  const suiteName = options.suite ?? 'ecdsa';
  const suite = getSuite(suiteName);
  const version = ProtocolVersion.parse(options.version ?? '2.11.0');
  const chain = await GroupChain.open({ store, suite, version, genesis: options.genesis ?? testGenesis(suiteName) });
  const sealers = sealerKeys(suiteName);
  const sealerList = sealers.map((k) => k.publicKey);
  const builder = (i: number) => new TransactionBuilder({ suite, generation: version.txGeneration, key: suite.generateKeyPair(seeded(i + 1)), random: seeded(700 + i) });
  const builders = [0, 1, 2].map(builder);
  return {
    chain,
    suite,
    version,
    builders,
    tx: (i: number, to: Uint8Array | null, data: Uint8Array): Transaction => builders[i]!.build({ to, data, blockLimit: BigInt(chain.height + 500) }),
    data: (signature: string, args: unknown[] = []) => encodeFunctionCall(signature, args, (d) => suite.hash(d)),
    helloWorldInit: () => concatBytes(fromHex(artifact('HelloWorld').bytecode)),
    /** Execute the next block and commit it with three sealers' signatures. */
    async commitBlock(txs: Transaction[]) {
      const executed = await chain.execute(
        { number: chain.height + 1, parentHash: chain.headHash, timestamp: GENESIS_TIME + (chain.height + 1) * 1000, sealer: 1, sealerList },
        txs,
      );
      const signatureList = [0, 1, 2].map((index) => ({ index, signature: suite.signatureToBytes(suite.sign(executed.hash, sealers[index]!)) }));
      return chain.commit(signatureList);
    },
  };
}
