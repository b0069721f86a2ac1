import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import { canonicalJson } from '../../codec/index.js';
import type { Randomness, Rng } from '../env.js';

/**
 * The seed of the stream named by `path` under the scenario seed `root`: the hex SHA-256 of the
 * canonical JSON array `[root, ...path]`. Streams with different paths are independent, so adding
 * a node, a link or a subsystem never shifts the draws of another stream.
 */
export function deriveSeed(root: string, path: readonly string[]): string {
  return createHash('sha256').update(canonicalJson([root, ...path])).digest('hex');
}

const TWO_POW_32 = 0x1_0000_0000;

/** A deterministic stream: seedrandom's Alea generator seeded with a derived seed. */
export class SeededRng implements Rng {
  private readonly prng: seedrandom.PRNG;

  constructor(readonly seed: string) {
    this.prng = seedrandom.alea(seed);
  }

  next(): number {
    return this.prng();
  }

  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) {
      throw new RangeError(`Rng.int: maxExclusive must be a positive safe integer (got ${String(maxExclusive)})`);
    }
    // next() has 32 bits of resolution; wider ranges take the 53-bit double.
    return Math.floor((maxExclusive <= TWO_POW_32 ? this.prng() : this.prng.double()) * maxExclusive);
  }

  bytes(length: number): Uint8Array {
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new RangeError(`Rng.bytes: length must be a non-negative safe integer (got ${String(length)})`);
    }
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 4) {
      const word = this.prng.int32();
      out[i] = word;
      if (i + 1 < length) out[i + 1] = word >>> 8;
      if (i + 2 < length) out[i + 2] = word >>> 16;
      if (i + 3 < length) out[i + 3] = word >>> 24;
    }
    return out;
  }
}

/** Named streams under one root seed and path prefix; the same name always returns the same stream. */
export class SeededRandomness implements Randomness {
  private readonly streams = new Map<string, SeededRng>();

  constructor(
    readonly rootSeed: string,
    readonly prefix: readonly string[],
  ) {}

  stream(name: string): SeededRng {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`Randomness.stream: name must be a non-empty string (got ${JSON.stringify(name)})`);
    }
    let rng = this.streams.get(name);
    if (!rng) {
      rng = new SeededRng(deriveSeed(this.rootSeed, [...this.prefix, name]));
      this.streams.set(name, rng);
    }
    return rng;
  }
}
