// `npm run fixtures:chains`: (re)writes the recordings in fixtures/chains/ (see its README).
//
// Each chain is a seeded simulation (SimChain: four sealers, a fifth node keeping the ledger
// without a role, real consensus signatures, a LAN-like network) driven by a fixed schedule of
// transactions sent through the nodes' JSON-RPC (sendRawTransaction, inside simulation events);
// once it has settled, Twinchain's recorder reads it over the in-process JSON-RPC
// (inProcessFetch on node0's RPC service) into fixtures/chains/<name>.jsonl.gz. Same seed, same
// chain, same bytes: running the script twice writes identical files.
//
//   npx tsx scripts/make-chain-fixtures.ts [name ...]   (default: every chain below)
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractBytecode } from '../fixtures/contracts/artifacts.js';
import { TransactionBuilder, type Transaction } from '../src/chain/index.js';
import { fromHex, toHex } from '../src/codec/index.js';
import { encodeFunctionCall } from '../src/abi/index.js';
import { keccak256, type SuiteName } from '../src/crypto/index.js';
import { precompileAddress, PRECOMPILE_ADDRESSES } from '../src/exec/index.js';
import { record, RecordingReader } from '../src/replay/index.js';
import { createRpcService, inProcessFetch } from '../src/rpc/index.js';
import { NodeRpc } from '../src/sim/node-rpc.js';
import { SimChain, type SimChainOptions } from '../src/sim/index.js';

export interface FixtureChainSpec {
  readonly name: string;
  readonly consensus: 'pbft' | 'raft';
  readonly suite: SuiteName;
  /** 2.11.0: the later interface variant; 2.0.0-rc1: the earlier one. */
  readonly version: string;
  readonly stateType: 'storage' | 'mpt';
}

export const FIXTURE_CHAINS: readonly FixtureChainSpec[] = [
  { name: 'pbft-ecdsa-later', consensus: 'pbft', suite: 'ecdsa', version: '2.11.0', stateType: 'storage' },
  { name: 'pbft-sm-later', consensus: 'pbft', suite: 'sm', version: '2.11.0', stateType: 'storage' },
  { name: 'raft-ecdsa-later', consensus: 'raft', suite: 'ecdsa', version: '2.11.0', stateType: 'mpt' },
  { name: 'raft-sm-later', consensus: 'raft', suite: 'sm', version: '2.11.0', stateType: 'storage' },
  { name: 'pbft-ecdsa-earlier', consensus: 'pbft', suite: 'ecdsa', version: '2.0.0-rc1', stateType: 'storage' },
  { name: 'pbft-sm-earlier', consensus: 'pbft', suite: 'sm', version: '2.0.0-rc1', stateType: 'storage' },
  { name: 'raft-ecdsa-earlier', consensus: 'raft', suite: 'ecdsa', version: '2.0.0-rc1', stateType: 'storage' },
  { name: 'raft-sm-earlier', consensus: 'raft', suite: 'sm', version: '2.0.0-rc1', stateType: 'mpt' },
];

/** Rounds of transactions (one every virtual second; each usually one block). */
export const ROUNDS = 300;
const ROUND_MS = 1000;
const SETTLE_MS = 30_000;
/** The header's recordedAt: fixed, so that the files are byte for byte the same on every run. */
const RECORDED_AT = '2026-01-01T00:00:00.000Z';

const CONSENSUS = precompileAddress(PRECOMPILE_ADDRESSES.Consensus).bytes;
const SYSTEM_CONFIG = precompileAddress(PRECOMPILE_ADDRESSES.SystemConfig).bytes;
const NO_CODE = fromHex('0x00000000000000000000000000000000deadbeef');
const CONTRACTS = ['HelloWorld', 'Counter', 'EventEmitter', 'Reverter', 'TableUser', 'Crud'] as const;

export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/chains/', import.meta.url));

/** Runs the chain of `spec` and records it into `out`; returns what was made. */
export async function makeFixtureChain(spec: FixtureChainSpec, out: string): Promise<{ blocks: number; transactions: number; failed: number; bytes: number }> {
  const options = (sealers: string[]): SimChainOptions => ({
    seed: `fixture/${spec.name}`,
    nodes: 5,
    suite: spec.suite,
    version: spec.version,
    groups: [{ id: 1, consensus: spec.consensus, sealers, spare: ['node4'], stateType: spec.stateType }],
    network: { latency: { kind: 'uniform', minMs: 2, maxMs: 20 } },
  });
  // The genesis sealers sorted by node id: from 2.9.0 the genesis mark lists them sorted and
  // replay can only rebuild that order (on the trie state their rows' order shows in the root).
  const ids = new SimChain(options(['node0'])).ids;
  const sealers = ['node0', 'node1', 'node2', 'node3'].sort((a, b) => (ids[Number(a.slice(4))]! < ids[Number(b.slice(4))]! ? -1 : 1));
  const chain = new SimChain(options(sealers));
  const { sim, suite, version } = chain;
  const rpc = new NodeRpc(chain);
  const rng = sim.random('fixture-workload');
  const accounts = ['alice', 'bob', 'carol'].map((name) => {
    const keys = sim.random(`account/${name}`);
    const nonces = sim.random(`account/${name}/nonces`);
    return new TransactionBuilder({ suite, generation: version.txGeneration, key: suite.generateKeyPair((n) => keys.bytes(n)), random: (n) => nonces.bytes(n) });
  });
  const admin = accounts[0]!;
  const sent: string[] = [];
  const refused: string[] = [];
  const addresses = new Map<string, Uint8Array>();

  const height = () => chain.group('node0')!.blockNumber();
  const call = (signature: string, args: unknown[] = []) => encodeFunctionCall(signature, args, keccak256);
  // system precompiles dispatch on the chain's hash (SM3 selectors on SM chains)
  const system = (signature: string, args: unknown[]) => encodeFunctionCall(signature, args, (d) => suite.hash(d));
  const send = async (from: TransactionBuilder, to: Uint8Array | null, data: Uint8Array): Promise<Transaction> => {
    const tx = from.build({ to, data, blockLimit: BigInt(height() + 500) });
    // to the nodes in turn, as an SDK spreads its requests
    const target = `node${sent.length % 4}`;
    const reply = await rpc.call(target, 'sendRawTransaction', [1, toHex(tx.raw)]);
    if (!reply || reply.error) refused.push(`${target}: ${JSON.stringify(reply?.error)}`);
    else sent.push(toHex(tx.hash));
    return tx;
  };
  const at = (name: string) => {
    const address = addresses.get(name);
    if (!address) throw new Error(`${spec.name}: ${name} was not deployed`);
    return address;
  };

  // round 1: the deployments; round 3: their addresses from the receipts, the table created
  const deploys: Array<[string, Transaction]> = [];
  sim.at(ROUND_MS, async () => {
    for (const name of CONTRACTS) deploys.push([name, await send(admin, null, contractBytecode(name))]);
  });
  sim.at(3 * ROUND_MS, async () => {
    for (const [name, tx] of deploys) {
      // the earlier interface variant prints the zero address as every receipt's contractAddress: the address comes from the ledger
      const record = await chain.group('node0')!.transaction(tx.hash);
      if (!record || record.receipt.status !== 0) throw new Error(`${spec.name}: deploying ${name} failed (status ${record?.receipt.status})`);
      addresses.set(name, record.receipt.contractAddress);
    }
    await send(admin, at('TableUser'), call('create()'));
  });

  // rounds 4 …: a seeded mix, and the chain's administration at fixed rounds
  const entry = (name: string, id: number, item: string) => JSON.stringify({ name, item_id: String(id), item_name: item });
  const mix: Array<(from: TransactionBuilder, i: number) => Promise<unknown>> = [
    (from, i) => send(from, at('HelloWorld'), call('set(string)', [`hello ${i}`])),
    (from) => send(from, at('Counter'), call('increment()')),
    (from, i) => send(from, at('Counter'), call('incrementBy(uint256)', [BigInt(i % 7)])),
    (from, i) => send(from, at('EventEmitter'), call('emitAll(uint256,string,string)', [BigInt(i), `label ${i}`, 'text'])),
    (from, i) => send(from, at('EventEmitter'), call('emitMany(uint256)', [BigInt(1 + (i % 4))])),
    (from, i) => send(from, at('Reverter'), call('revertWithReason(string)', [`no ${i}`])),
    (from) => send(from, at('Reverter'), call('requireNonZero(uint256)', [0n])),
    (from) => send(from, at('Reverter'), call('divide(uint256,uint256)', [1n, 0n])),
    (from, i) => send(from, at('Reverter'), call('succeed(uint256)', [BigInt(i)])),
    (from, i) => send(from, at('TableUser'), call('insert(string,int256,string)', [`user${i % 5}`, BigInt(i), `item ${i}`])),
    (from, i) => send(from, at('TableUser'), call('update(string,int256,string)', [`user${i % 5}`, BigInt(i - 10), `renamed ${i}`])),
    (from, i) => send(from, at('TableUser'), call('remove(string,int256)', [`user${i % 5}`, BigInt(i - 20)])),
    (from, i) => send(from, at('Crud'), call('insert(string,string,string,string)', ['t_user', `crud${i % 3}`, entry(`crud${i % 3}`, i, `crud item ${i}`), ''])),
    (from, i) =>
      send(from, at('Crud'), call('update(string,string,string,string,string)', ['t_user', `crud${i % 3}`, JSON.stringify({ item_name: `crud renamed ${i}` }), JSON.stringify({ item_id: { lt: String(i) } }), ''])),
    (from, i) => send(from, at('Crud'), call('remove(string,string,string,string)', ['t_user', `crud${i % 3}`, JSON.stringify({ item_id: { le: String(i - 15) } }), ''])),
    (from, i) => send(from, NO_CODE, call('set(string)', [`nobody ${i}`])),
  ];
  const node4 = chain.idOf('node4');
  const administration = new Map<number, () => Promise<unknown>>([
    [20, () => send(admin, SYSTEM_CONFIG, system('setValueByKey(string,string)', ['tx_count_limit', '500']))],
    [60, () => send(admin, CONSENSUS, system('addObserver(string)', [node4]))],
    [100, () => send(admin, CONSENSUS, system('addSealer(string)', [node4]))],
    [200, () => send(admin, SYSTEM_CONFIG, system('setValueByKey(string,string)', ['tx_gas_limit', '400000000']))],
  ]);
  for (let round = 4; round <= ROUNDS; round++) {
    sim.at(round * ROUND_MS, async () => {
      await administration.get(round)?.();
      const count = 1 + Math.floor(rng.next() * 4);
      for (let k = 0; k < count; k++) {
        const i = round * 10 + k;
        await mix[Math.floor(rng.next() * mix.length)]!(accounts[Math.floor(rng.next() * accounts.length)]!, i);
      }
    });
  }
  await sim.run({ until: ROUNDS * ROUND_MS + SETTLE_MS });
  if (refused.length > 0) throw new Error(`${spec.name}: ${refused.length} transactions refused, the first: ${refused[0]}`);
  const heights = chain.names.map((n) => chain.group(n)?.blockNumber());
  if (new Set(heights).size !== 1) throw new Error(`${spec.name}: the nodes did not settle on one height: ${heights.join(', ')}`);

  // record node0 through the recorder over its in-process JSON-RPC
  await rm(out, { force: true });
  const service = createRpcService(chain.node('node0')!);
  const summary = await record({ url: `http://node0.${spec.name}.in-process/`, out, fetch: inProcessFetch(service), recordedAt: RECORDED_AT });
  if (summary.transactions !== sent.length) throw new Error(`${spec.name}: ${sent.length} transactions sent, ${summary.transactions} recorded`);
  let failed = 0;
  const reader = await RecordingReader.open(out);
  for await (const b of reader.blocks()) failed += b.receipts.filter((r) => r.status !== '0x0').length;
  return { blocks: summary.blocks, transactions: summary.transactions, failed, bytes: (await stat(out)).size };
}

async function main(names: string[]): Promise<void> {
  const unknown = names.filter((n) => !FIXTURE_CHAINS.some((c) => c.name === n));
  if (unknown.length > 0) throw new Error(`unknown chain ${unknown.join(', ')}; the chains are ${FIXTURE_CHAINS.map((c) => c.name).join(', ')}`);
  await mkdir(FIXTURE_DIR, { recursive: true });
  for (const spec of FIXTURE_CHAINS.filter((c) => names.length === 0 || names.includes(c.name))) {
    const started = performance.now();
    const out = path.join(FIXTURE_DIR, `${spec.name}.jsonl.gz`);
    const made = await makeFixtureChain(spec, out);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${path.relative(process.cwd(), out)}: ${made.blocks} blocks, ${made.transactions} transactions (${made.failed} with a non-zero status), ${(made.bytes / 1024).toFixed(0)} KiB, ${seconds} s`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  });
}
