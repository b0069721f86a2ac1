import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { sm2 } from 'sm-crypto-v2';
import { bigintToFixedBytes, bytesToBigint, concatBytes, fromHex, toHexNoPrefix } from '../codec/index.js';
import { sm3 } from './sm3.js';
import {
  CryptoError,
  SM2_N,
  type CryptoSuite,
  type KeyPair,
  type RandomSource,
  type Signature,
  type SignatureFormError,
  type Sm2Signature,
} from './suite.js';

function isOnCurve(publicKeyHex: string): boolean {
  try {
    return sm2.verifyPublicKey(publicKeyHex);
  } catch {
    return false;
  }
}

/** The key's table for that window, null for a key off the curve (parsing the point checks it). */
function precompute(publicKeyHex: string, window: number): PrecomputedPoint | null {
  try {
    return sm2.precomputePublicKey(`04${publicKeyHex}`, window);
  } catch {
    return null;
  }
}

/** GM/T 0009 default signer id; FISCO 2.x signs with it (checked against vectors.json). */
export const SM2_DEFAULT_USER_ID = '1234567812345678';

type PrecomputedPoint = ReturnType<typeof sm2.precomputePublicKey>;

/**
 * Window sizes of a signer's precomputed table. A 4-bit table takes ~10 ms and makes a verification
 * about 3.5x faster than with the plain key (5 ms), so it pays from a key's second verification; an
 * 8-bit table takes ~58 ms and saves another ~0.4 ms a verification, so only a key verified often
 * (a node's consensus key, a busy sender) gets one, at its HOT_USES-th verification.
 */
const COLD_WINDOW = 4;
const HOT_WINDOW = 8;
/** About where the larger table has paid for itself (48 ms more at 0.4 ms a verification). */
const HOT_USES = 128;

interface CachedKey {
  point: PrecomputedPoint;
  uses: number;
}

/** SM2 signatures over SM3 digests: FISCO's guomi suite. */
export class Sm2Suite implements CryptoSuite {
  readonly name = 'sm' as const;
  private readonly precomputed = new Map<string, CachedKey>();

  /**
   * `cacheSize`: how many signers' precomputed public keys to keep, least recently used out first
   * (about 110 KB each, 900 KB for a hot one); 0 verifies with the plain key every time.
   * `hotUses`: the verification of a key at which it gets the larger table.
   */
  constructor(
    private readonly cacheSize = 1024,
    private readonly hotUses = HOT_USES,
  ) {}

  hash(data: Uint8Array): Uint8Array {
    return sm3(data);
  }

  generateKeyPair(random: RandomSource): KeyPair {
    for (;;) {
      const privateKey = random(32);
      const d = bytesToBigint(privateKey);
      if (privateKey[0] !== 0 && d > 0n && d < SM2_N - 1n) return this.keyPairFromPrivateKey(privateKey);
    }
  }

  keyPairFromPrivateKey(privateKey: Uint8Array): KeyPair {
    const d = bytesToBigint(privateKey);
    if (privateKey.length !== 32 || d <= 0n || d >= SM2_N - 1n) throw new CryptoError('invalid SM2 private key');
    const publicHex = sm2.getPublicKeyFromPrivateKey(toHexNoPrefix(privateKey));
    return { privateKey: Uint8Array.from(privateKey), publicKey: fromHex(publicHex.slice(2)) };
  }

  sign(digest: Uint8Array, key: KeyPair): Sm2Signature {
    // sm-crypto-v2 draws k from ambient randomness unless given a point pool; a deterministic k
    // (HMAC of key and digest, RFC 6979 in spirit) keeps simulated SM chains reproducible.
    // The pool is drawn lazily: doSignature takes one point and asks for another only when r or s
    // comes out zero (odds about 2^-254), so the one point multiplication in three that is ever
    // needed is the only one computed. It pops from the end, so counters 0, 1, 2 come out in order.
    let counter = 0;
    const pool = {
      get length() {
        return 3 - counter;
      },
      pop: () => this.noncePoint(key.privateKey, digest, counter++),
    };
    const signatureHex = sm2.doSignature(digest, toHexNoPrefix(key.privateKey), {
      hash: true,
      publicKey: `04${toHexNoPrefix(key.publicKey)}`,
      userId: SM2_DEFAULT_USER_ID,
      pointPool: pool as unknown as NonNullable<Parameters<typeof sm2.doSignature>[2]>['pointPool'],
    });
    return {
      kind: 'sm',
      r: BigInt(`0x${signatureHex.slice(0, 64)}`),
      s: BigInt(`0x${signatureHex.slice(64, 128)}`),
      publicKey: Uint8Array.from(key.publicKey),
    };
  }

  recoverSigner(digest: Uint8Array, signature: Signature): Uint8Array | null {
    if (signature.kind !== 'sm') return null;
    return this.verify(digest, signature, signature.publicKey) ? signature.publicKey : null;
  }

  verify(digest: Uint8Array, signature: Signature, publicKey: Uint8Array): boolean {
    if (signature.kind !== 'sm' || this.signatureFormError(signature)) return false;
    const point = this.publicPoint(publicKey);
    if (!point) return false;
    const signatureHex = toHexNoPrefix(concatBytes(bigintToFixedBytes(signature.r, 32), bigintToFixedBytes(signature.s, 32)));
    try {
      return sm2.doVerifySignature(digest, signatureHex, point, { hash: true, userId: SM2_DEFAULT_USER_ID });
    } catch {
      return false;
    }
  }

  signatureFormError(signature: Signature): SignatureFormError | null {
    if (signature.kind !== 'sm') return { field: 'signature', reason: 'expected an SM2 signature' };
    if (signature.publicKey.length !== 64) {
      return { field: 'v', reason: `public key is ${signature.publicKey.length} bytes, expected 64` };
    }
    if (signature.publicKey.every((b) => b === 0)) return { field: 'v', reason: 'public key is all zero' };
    if (signature.r <= 0n || signature.r >= SM2_N) return { field: 'r', reason: 'out of range (0 < r < n)' };
    if (signature.s <= 0n || signature.s >= SM2_N) return { field: 's', reason: 'out of range (0 < s < n)' };
    return null;
  }

  address(publicKey: Uint8Array): Uint8Array {
    return sm3(publicKey).subarray(12);
  }

  signatureToBytes(signature: Signature): Uint8Array {
    if (signature.kind !== 'sm') throw new CryptoError('expected an SM2 signature');
    return concatBytes(bigintToFixedBytes(signature.r, 32), bigintToFixedBytes(signature.s, 32), signature.publicKey);
  }

  signatureFromBytes(bytes: Uint8Array): Sm2Signature {
    if (bytes.length !== 128) throw new CryptoError(`an SM2 signature is 128 bytes (r, s, public key), got ${bytes.length}`);
    return {
      kind: 'sm',
      r: bytesToBigint(bytes.subarray(0, 32)),
      s: bytesToBigint(bytes.subarray(32, 64)),
      publicKey: Uint8Array.from(bytes.subarray(64)),
    };
  }

  /** Number of precomputed public keys held (for tests and benchmarks). */
  get cachedKeys(): number {
    return this.precomputed.size;
  }

  /** Number of them verified often enough to hold the larger table. */
  get hotKeys(): number {
    let hot = 0;
    for (const entry of this.precomputed.values()) if (entry.uses >= this.hotUses) hot++;
    return hot;
  }

  /** The signer's precomputed point (the plain key when the cache is off), null for a key off the curve. */
  private publicPoint(publicKey: Uint8Array): PrecomputedPoint | string | null {
    const id = toHexNoPrefix(publicKey);
    if (this.cacheSize === 0) return isOnCurve(`04${id}`) ? `04${id}` : null;
    let entry = this.precomputed.get(id);
    if (entry) {
      this.precomputed.delete(id);
    } else {
      const point = precompute(id, COLD_WINDOW);
      if (!point) return null;
      entry = { point, uses: 0 };
      if (this.precomputed.size >= this.cacheSize) this.precomputed.delete(this.precomputed.keys().next().value!);
    }
    this.precomputed.set(id, entry);
    entry.uses++;
    if (entry.uses === this.hotUses) entry.point = precompute(id, HOT_WINDOW) ?? entry.point;
    return entry.point;
  }

  private noncePoint(privateKey: Uint8Array, digest: Uint8Array, counter: number): { k: bigint; x1: bigint } {
    const mac = hmac(sha256, privateKey, concatBytes(digest, Uint8Array.of(counter)));
    const k = (bytesToBigint(mac) % (SM2_N - 1n)) + 1n;
    const kG = sm2.getPublicKeyFromPrivateKey(k.toString(16).padStart(64, '0'));
    return { k, x1: BigInt(`0x${kG.slice(2, 66)}`) };
  }
}
