import { decodeTransaction, recoverSender, TransactionBuilder, type Transaction } from '../chain/index.js';
import { EcdsaSuite, keccak256, sm3, Sm2Suite, type CryptoSuite } from '../crypto/index.js';
import type { BenchIo } from './bench-io.js';
import { formatRate, measureRate, table, verdict } from './measure.js';

const SENDERS = 50;
const TXS = 2000;

function seeded(seed: number) {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
}

function makeTransactions(suite: CryptoSuite): Transaction[] {
  const builders = Array.from(
    { length: SENDERS },
    (_, i) => new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(seeded(i + 1)), random: seeded(1000 + i) }),
  );
  // HelloWorld set("Hello, FISCO BCOS")-sized calldata
  const data = new Uint8Array(100).fill(0x42);
  return Array.from({ length: TXS }, (_, i) => builders[i % SENDERS]!.build({ to: new Uint8Array(20).fill(1), data, blockLimit: 500n }));
}

const ROUNDS = 9;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * Block and consensus signatures: checked as FISCO's ecdsaVerify does (recover the key from r, s,
 * v and compare; issue 43) next to the r, s verification against the key that was used before,
 * which let a flipped v through. Interleaved rounds of ~0.3 s each; median and spread.
 */
function blockSignatureRows(ecdsa: EcdsaSuite, txs: readonly Transaction[]): string[][] {
  const keys = Array.from({ length: SENDERS }, (_, i) => ecdsa.generateKeyPair(seeded(5000 + i)));
  const signed = txs.slice(0, 500).map((tx, i) => {
    const key = keys[i % SENDERS]!;
    const signature = ecdsa.sign(tx.hash, key);
    return { digest: tx.hash, signature, rs: ecdsa.signatureToBytes(signature).subarray(0, 64), publicKey: key.publicKey };
  });
  const recovering = (i: number) => {
    const s = signed[i % signed.length]!;
    if (!ecdsa.verify(s.digest, s.signature, s.publicKey)) throw new Error('verification failed');
  };
  const rsOnly = (i: number) => {
    const s = signed[i % signed.length]!;
    if (!ecdsa.backend.verify(s.digest, s.rs, s.publicKey)) throw new Error('verification failed');
  };
  const [now, before]: number[][] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    now.push(measureRate(recovering, 0.3, 20).perSecond);
    before.push(measureRate(rsOnly, 0.3, 20).perSecond);
  }
  const spread = (xs: number[]) => `${formatRate(Math.min(...xs))}–${formatRate(Math.max(...xs))}`;
  const ratio = median(now) / median(before);
  return [
    [`ecdsa block signature: recover + compare (${ecdsa.backend.name}, FISCO's check)`, formatRate(median(now)), `${(ratio * 100).toFixed(0)}% of r,s verify; spread ${spread(now)}`],
    [`ecdsa block signature: r,s verify only (before; passes a flipped v)`, formatRate(median(before)), `reference; spread ${spread(before)}`],
  ];
}

export async function run(io: BenchIo): Promise<void> {
  io.out(`crypto: ${TXS} signed rc2 transactions from ${SENDERS} senders, one core, ~1 s per figure\n`);
  const rows: string[][] = [];

  const ecdsa = new EcdsaSuite('auto');
  const ecdsaTxs = makeTransactions(ecdsa);
  const recover = measureRate((i) => {
    const tx = ecdsaTxs[i % TXS]!;
    if (!ecdsa.recoverSigner(tx.signingHash, tx.signature)) throw new Error('recovery failed');
  });
  rows.push([`ecdsa recover (${ecdsa.backend.name})`, formatRate(recover.perSecond), verdict(recover.perSecond, 10_000)]);
  const noble = new EcdsaSuite('noble');
  const recoverNoble = measureRate((i) => {
    const tx = ecdsaTxs[i % TXS]!;
    if (!noble.recoverSigner(tx.signingHash, tx.signature)) throw new Error('recovery failed');
  }, 0.5, 5);
  rows.push(['ecdsa recover (noble fallback)', formatRate(recoverNoble.perSecond), 'reference']);
  const ecdsaFull = measureRate((i) => {
    const tx = decodeTransaction(ecdsaTxs[i % TXS]!.raw, { suite: ecdsa, generation: 'rc2' });
    recoverSender(tx, ecdsa);
  });
  rows.push(['ecdsa tx decode + verify', formatRate(ecdsaFull.perSecond), '']);

  rows.push(...blockSignatureRows(ecdsa, ecdsaTxs));

  // keys verified often (a node's consensus key, a busy sender) hold 8-bit tables: the target's case
  const sm = new Sm2Suite(1024, 1);
  const smTxs = makeTransactions(sm);
  const smVerify = measureRate((i) => {
    const tx = smTxs[i % TXS]!;
    if (!sm.recoverSigner(tx.signingHash, tx.signature)) throw new Error('verification failed');
  }, 1, SENDERS);
  rows.push([`sm2 verify (${sm.hotKeys} keys, 8-bit tables)`, formatRate(smVerify.perSecond), verdict(smVerify.perSecond, 1_500)]);
  // keys seen a few times hold 4-bit tables (the first sighting precomputes one)
  const warm = new Sm2Suite();
  const smWarm = measureRate((i) => {
    const tx = smTxs[i % TXS]!;
    if (!warm.recoverSigner(tx.signingHash, tx.signature)) throw new Error('verification failed');
  }, 0.5, SENDERS);
  rows.push([`sm2 verify (${warm.cachedKeys} keys, 4-bit tables)`, formatRate(smWarm.perSecond), 'reference']);
  const uncached = new Sm2Suite(0);
  const smCold = measureRate((i) => {
    const tx = smTxs[i % TXS]!;
    if (!uncached.recoverSigner(tx.signingHash, tx.signature)) throw new Error('verification failed');
  }, 0.5, 5);
  rows.push(['sm2 verify (no key cache, plain)', formatRate(smCold.perSecond), 'reference']);
  const smFull = measureRate((i) => {
    const tx = decodeTransaction(smTxs[i % TXS]!.raw, { suite: sm, generation: 'rc2' });
    recoverSender(tx, sm);
  });
  rows.push(['sm2 tx decode + verify', formatRate(smFull.perSecond), '']);

  const input = new Uint8Array(32).fill(7);
  rows.push(['keccak256 (32 B, hash-wasm)', formatRate(measureRate(() => void keccak256(input), 0.3).perSecond), '']);
  rows.push(['sm3 (32 B, node:crypto)', formatRate(measureRate(() => void sm3(input), 0.3).perSecond), '']);

  io.out(table(['operation', 'per second', 'target'], rows));
}
