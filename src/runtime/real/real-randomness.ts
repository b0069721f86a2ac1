import { randomBytes, randomInt } from 'node:crypto';
import type { Randomness, Rng } from '../env.js';

/** randomInt accepts ranges below 2^48. */
const MAX_RANDOM_INT = 2 ** 48;

/** Cryptographic randomness (node:crypto) for a real node. */
export class CryptoRng implements Rng {
  constructor(readonly name: string) {}

  next(): number {
    // 53 random bits, as a double in [0, 1)
    const b = randomBytes(7);
    const high = ((b[0]! & 0x1f) << 16) | (b[1]! << 8) | b[2]!;
    const low = ((b[3]! << 24) | (b[4]! << 16) | (b[5]! << 8) | b[6]!) >>> 0;
    return (high * 0x1_0000_0000 + low) / 2 ** 53;
  }

  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) {
      throw new RangeError(`Rng.int: maxExclusive must be a positive safe integer (got ${String(maxExclusive)})`);
    }
    if (maxExclusive <= MAX_RANDOM_INT) return randomInt(maxExclusive);
    return Math.floor(this.next() * maxExclusive);
  }

  bytes(length: number): Uint8Array {
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new RangeError(`Rng.bytes: length must be a non-negative safe integer (got ${String(length)})`);
    }
    return new Uint8Array(randomBytes(length));
  }
}

/** Every stream of a real node is the operating system's randomness; names only label them. */
export class RealRandomness implements Randomness {
  private readonly streams = new Map<string, CryptoRng>();

  stream(name: string): CryptoRng {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`Randomness.stream: name must be a non-empty string (got ${JSON.stringify(name)})`);
    }
    let rng = this.streams.get(name);
    if (!rng) {
      rng = new CryptoRng(name);
      this.streams.set(name, rng);
    }
    return rng;
  }
}
