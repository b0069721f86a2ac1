import { bigintToFixedBytes, bytesEqual, bytesToBigint } from '../codec/index.js';
import { keccak256 } from './keccak.js';
import { loadNativeBackend, nobleBackend, type Secp256k1Backend } from './secp256k1-backend.js';
import {
  CryptoError,
  SECP256K1_N,
  type CryptoSuite,
  type EcdsaSignature,
  type KeyPair,
  type RandomSource,
  type Signature,
  type SignatureFormError,
} from './suite.js';

const HALF_N = SECP256K1_N >> 1n;

export type EcdsaBackendChoice = 'auto' | 'native' | 'noble';

/** ECDSA over secp256k1 with keccak256: FISCO's default (non-guomi) suite. */
export class EcdsaSuite implements CryptoSuite {
  readonly name = 'ecdsa' as const;
  readonly backend: Secp256k1Backend;

  constructor(choice: EcdsaBackendChoice = 'auto') {
    const native = choice === 'noble' ? undefined : loadNativeBackend();
    if (choice === 'native' && !native) throw new CryptoError('the native secp256k1 addon could not be loaded');
    this.backend = native ?? nobleBackend;
  }

  hash(data: Uint8Array): Uint8Array {
    return keccak256(data);
  }

  generateKeyPair(random: RandomSource): KeyPair {
    for (;;) {
      const privateKey = random(32);
      // FISCO's build_chain regenerates keys whose hex starts with 00; do the same so key hex is always 64 chars.
      if (privateKey[0] !== 0 && this.backend.isValidPrivateKey(privateKey)) return this.keyPairFromPrivateKey(privateKey);
    }
  }

  keyPairFromPrivateKey(privateKey: Uint8Array): KeyPair {
    if (!this.backend.isValidPrivateKey(privateKey)) throw new CryptoError('invalid secp256k1 private key');
    return { privateKey: Uint8Array.from(privateKey), publicKey: Uint8Array.from(this.backend.publicKey(privateKey)) };
  }

  sign(digest: Uint8Array, key: KeyPair): EcdsaSignature {
    const { signature, recid } = this.backend.sign(digest, key.privateKey);
    return {
      kind: 'ecdsa',
      r: bytesToBigint(signature.subarray(0, 32)),
      s: bytesToBigint(signature.subarray(32, 64)),
      v: recid,
    };
  }

  recoverSigner(digest: Uint8Array, signature: Signature): Uint8Array | null {
    if (signature.kind !== 'ecdsa' || this.signatureFormError(signature)) return null;
    return this.backend.recover(digest, rs(signature), signature.v);
  }

  /**
   * FISCO's ecdsaVerify (libdevcrypto/ECDSASignature.cpp): recover the key from (r, s, v) and
   * compare it with the expected one, so a wrong v is refused (a plain r, s check would pass it).
   * Its ecdsaRecover takes recovery ids 0-3 and 0 < r, s < n, without the low-s rule, which FISCO
   * applies to transactions only (recoverSigner / signatureFormError).
   */
  verify(digest: Uint8Array, signature: Signature, publicKey: Uint8Array): boolean {
    if (signature.kind !== 'ecdsa' || signature.v < 0 || signature.v > 3 || !Number.isInteger(signature.v)) return false;
    if (signature.r <= 0n || signature.r >= SECP256K1_N || signature.s <= 0n || signature.s >= SECP256K1_N) return false;
    const recovered = this.backend.recover(digest, rs(signature), signature.v);
    return recovered !== null && bytesEqual(recovered, publicKey);
  }

  signatureFormError(signature: Signature): SignatureFormError | null {
    if (signature.kind !== 'ecdsa') return { field: 'signature', reason: 'expected an ECDSA signature' };
    if (signature.v !== 0 && signature.v !== 1) return { field: 'v', reason: `recovery id ${signature.v} is not 0 or 1` };
    if (signature.r <= 0n || signature.r >= SECP256K1_N) return { field: 'r', reason: 'out of range (0 < r < n)' };
    if (signature.s <= 0n || signature.s >= SECP256K1_N) return { field: 's', reason: 'out of range (0 < s < n)' };
    if (signature.s > HALF_N) return { field: 's', reason: 'value above n/2 (high-s is not allowed)' };
    return null;
  }

  address(publicKey: Uint8Array): Uint8Array {
    return keccak256(publicKey).subarray(12);
  }

  signatureToBytes(signature: Signature): Uint8Array {
    if (signature.kind !== 'ecdsa') throw new CryptoError('expected an ECDSA signature');
    const out = new Uint8Array(65);
    out.set(rs(signature), 0);
    out[64] = signature.v;
    return out;
  }

  signatureFromBytes(bytes: Uint8Array): EcdsaSignature {
    if (bytes.length !== 65) throw new CryptoError(`an ECDSA signature is 65 bytes (r, s, v), got ${bytes.length}`);
    return {
      kind: 'ecdsa',
      r: bytesToBigint(bytes.subarray(0, 32)),
      s: bytesToBigint(bytes.subarray(32, 64)),
      v: bytes[64]!,
    };
  }
}

function rs(signature: EcdsaSignature): Uint8Array {
  const out = new Uint8Array(64);
  out.set(bigintToFixedBytes(signature.r, 32), 0);
  out.set(bigintToFixedBytes(signature.s, 32), 32);
  return out;
}
