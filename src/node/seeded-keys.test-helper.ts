import seedrandom from 'seedrandom';
import { toHex } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';

/**
 * n node keys drawn from a seeded stream, with their node ids (hex, no 0x), and the stream
 * itself for whatever the test draws next (client keys, transaction nonces): the same seed gives
 * the same keys and the same transactions in every run.
 */
export function seededKeys(seed: string, n: number, suite: CryptoSuite) {
  const rng = seedrandom(seed);
  const random = (k: number) => Uint8Array.from({ length: k }, () => Math.floor(rng() * 256));
  const keys = Array.from({ length: n }, () => suite.generateKeyPair(random));
  const ids = keys.map((k) => toHex(k.publicKey).slice(2));
  return { random, keys, ids };
}
