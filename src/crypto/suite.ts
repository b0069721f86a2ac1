/** Which signature/hash family a chain uses: ECDSA-secp256k1 + keccak256, or SM2 + SM3 (guomi). */
export type SuiteName = 'ecdsa' | 'sm';

export interface KeyPair {
  /** 32-byte private scalar. */
  readonly privateKey: Uint8Array;
  /** 64-byte uncompressed public key without the 0x04 prefix; its hex is the FISCO node id. */
  readonly publicKey: Uint8Array;
}

/** Source of random bytes, injected so keys can come from a seeded stream in simulation. */
export type RandomSource = (length: number) => Uint8Array;

export interface EcdsaSignature {
  readonly kind: 'ecdsa';
  readonly r: bigint;
  readonly s: bigint;
  /** Recovery id, 0 or 1 (written as 27/28 in transaction RLP). */
  readonly v: number;
}

export interface Sm2Signature {
  readonly kind: 'sm';
  readonly r: bigint;
  readonly s: bigint;
  /** The signer's 64-byte public key, carried with the signature (FISCO puts it in the v slot). */
  readonly publicKey: Uint8Array;
}

export type Signature = EcdsaSignature | Sm2Signature;

export interface CryptoSuite {
  readonly name: SuiteName;
  /** keccak256 or SM3; 32-byte digest. */
  hash(data: Uint8Array): Uint8Array;
  generateKeyPair(random: RandomSource): KeyPair;
  keyPairFromPrivateKey(privateKey: Uint8Array): KeyPair;
  /** Sign a 32-byte digest. Deterministic: the same key and digest give the same signature. */
  sign(digest: Uint8Array, key: KeyPair): Signature;
  /**
   * The signer's public key if the signature is valid for the digest, else null.
   * ECDSA recovers it; SM2 verifies against the key the signature carries.
   */
  recoverSigner(digest: Uint8Array, signature: Signature): Uint8Array | null;
  /** Check a signature against a known public key. */
  verify(digest: Uint8Array, signature: Signature, publicKey: Uint8Array): boolean;
  /** Which part of the signature is malformed and why (r, s bounds; low-s for ECDSA), or null when well formed. */
  signatureFormError(signature: Signature): SignatureFormError | null;
  /** Account address: the last 20 bytes of hash(publicKey). */
  address(publicKey: Uint8Array): Uint8Array;
  /** FISCO's flat form used by block and consensus signatures: r‖s‖v (65 bytes) or r‖s‖publicKey (128 bytes). */
  signatureToBytes(signature: Signature): Uint8Array;
  /** Inverse of signatureToBytes; throws CryptoError on a wrong length. */
  signatureFromBytes(bytes: Uint8Array): Signature;
  /**
   * Optional shortcut for verify(digest, signatureFromBytes(flat), publicKey), false when `flat`
   * is malformed: a suite that caches checks keys them on the bytes as they came.
   */
  verifyFlat?(digest: Uint8Array, flat: Uint8Array, publicKey: Uint8Array): boolean;
}

export interface SignatureFormError {
  /** The offending part, named as in transaction RLP: v (recovery id or SM2 public key), r or s. */
  readonly field: 'v' | 'r' | 's' | 'signature';
  readonly reason: string;
}

export class CryptoError extends Error {
  override readonly name = 'CryptoError';
}

/** secp256k1 and SM2 share this bound check style: 0 < x < n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const SM2_N = 0xfffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123n;
