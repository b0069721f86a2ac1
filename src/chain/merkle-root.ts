import { bigintToBytes, concatBytes, rlpEncode } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';

const FANOUT = 16;

/**
 * FISCO ≥ 2.2.0 transaction/receipt root: leaves `rlp(i) ‖ itemHash_i` in order, hashed 16 at a
 * time level by level until one node is left, and that node hashed once more. No items → hash("").
 */
export function merkleRoot16(itemHashes: readonly Uint8Array[], suite: CryptoSuite): Uint8Array {
  if (itemHashes.length === 0) return suite.hash(new Uint8Array(0));
  let level: Uint8Array[] = itemHashes.map((h, i) => concatBytes(indexKey(i), h));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += FANOUT) next.push(suite.hash(concatBytes(...level.slice(i, i + FANOUT))));
    level = next;
  }
  return suite.hash(level[0]!);
}

/** rc1's Ethereum-style trie root over `rlp(i) → item`, hashed with the suite's hash. */
export async function orderedTrieRoot(items: readonly Uint8Array[], suite: CryptoSuite): Promise<Uint8Array> {
  // loaded on first use: only rc1 chains have such roots, and the trie library (48 modules with
  // its utilities) would otherwise load in every thread that imports chain/, the replay's workers too
  const { createMPT } = await import('@ethereumjs/mpt');
  const trie = await createMPT({ useKeyHashing: false, useKeyHashingFunction: (data) => suite.hash(data) });
  for (let i = 0; i < items.length; i++) await trie.put(indexKey(i), items[i]!);
  return trie.root();
}

function indexKey(i: number): Uint8Array {
  return rlpEncode(bigintToBytes(BigInt(i)));
}
