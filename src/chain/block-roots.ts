import { rlpListOfEncoded } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { encodeTxsParallel } from './block.js';
import { merkleRoot16, orderedTrieRoot } from './merkle-root.js';
import type { RootScheme } from './protocol-version.js';
import { encodeReceipt, type Receipt } from './receipt.js';
import type { Transaction } from './transaction.js';

/** transactionsRoot as FISCO computes it for the version's root scheme. */
export async function computeTransactionsRoot(
  txs: readonly Transaction[],
  scheme: RootScheme,
  suite: CryptoSuite,
): Promise<Uint8Array> {
  switch (scheme) {
    case 'merkle16':
      return merkleRoot16(txs.map((t) => t.hash), suite);
    case 'flat-hash':
      return suite.hash(encodeTxsParallel(txs));
    case 'trie':
      return orderedTrieRoot(txs.map((t) => t.raw), suite);
  }
}

export async function computeReceiptsRoot(
  receipts: readonly Receipt[],
  scheme: RootScheme,
  suite: CryptoSuite,
  withRemainGas: boolean,
): Promise<Uint8Array> {
  return receiptsRootOfEncodings(
    receipts.map((r) => encodeReceipt(r, withRemainGas)),
    scheme,
    suite,
  );
}

/** receiptsRoot from the receipts' encodings; `knownHashes[i]`, where given, is suite.hash(encoded[i]) already computed. */
export async function receiptsRootOfEncodings(
  encoded: readonly Uint8Array[],
  scheme: RootScheme,
  suite: CryptoSuite,
  knownHashes: ReadonlyArray<Uint8Array | undefined> = [],
): Promise<Uint8Array> {
  switch (scheme) {
    case 'merkle16':
      return merkleRoot16(encoded.map((e, i) => knownHashes[i] ?? suite.hash(e)), suite);
    case 'flat-hash':
      return suite.hash(rlpListOfEncoded(encoded));
    case 'trie':
      return orderedTrieRoot(encoded, suite);
  }
}
