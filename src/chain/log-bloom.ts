import type { CryptoSuite } from '../crypto/index.js';

export const BLOOM_BYTES = 256;

/** The 2048-bit log bloom: 3 bits per item (address and each topic), from 11-bit slices of its hash. */
export function bloomAdd(bloom: Uint8Array, item: Uint8Array, suite: CryptoSuite): void {
  bloomSet(bloom, bloomBits(item, suite));
}

/** The 3 bits of the bloom an item sets. */
export function bloomBits(item: Uint8Array, suite: CryptoSuite): readonly [number, number, number] {
  const h = suite.hash(item);
  const bit = (i: number) => ((h[i]! << 8) | h[i + 1]!) & 2047;
  return [bit(0), bit(2), bit(4)];
}

/** Sets `bits` (from bloomBits) in `bloom`. */
export function bloomSet(bloom: Uint8Array, bits: readonly number[]): void {
  for (const bit of bits) bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
}

export function logsBloom(
  logs: ReadonlyArray<{ address: Uint8Array; topics: readonly Uint8Array[] }>,
  suite: CryptoSuite,
): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const log of logs) {
    bloomAdd(bloom, log.address, suite);
    for (const topic of log.topics) bloomAdd(bloom, topic, suite);
  }
  return bloom;
}

export function bloomOr(target: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) target[i]! |= other[i]!;
}

/** Whether the bloom may contain the item (false means certainly not). */
export function bloomMayContain(bloom: Uint8Array, item: Uint8Array, suite: CryptoSuite): boolean {
  const probe = new Uint8Array(BLOOM_BYTES);
  bloomAdd(probe, item, suite);
  return probe.every((byte, i) => (bloom[i]! & byte) === byte);
}
