import { concatBytes } from '../codec/index.js';
import type { CryptoSuite, KeyPair } from '../crypto/index.js';

/**
 * Signs consensus messages and block signature lists, and checks other nodes' signatures.
 * Real nodes use the chain's suite; large simulations may use SimulatedSigner instead.
 */
export interface ConsensusSigner {
  /** Scheme name, for traces ("ecdsa", "sm", "simulated"). */
  readonly scheme: string;
  /** Bytes of every signature of this scheme. */
  readonly signatureSize: number;
  /**
   * Where, within a signature, messages differ: [offset, length). ECDSA and SM2 sign with a
   * nonce derived from the digest, so r‖s differs for every message; SM2's flat form then ends
   * with the signer's public key, the same in all its messages.
   */
  readonly distinctPart: readonly [number, number];
  sign(digest: Uint8Array): Uint8Array;
  /** Whether `signature` over `digest` was made by the node with this id (64-byte public key). */
  verify(digest: Uint8Array, signature: Uint8Array, nodeId: Uint8Array): boolean;
}

/** Signatures with the node key in FISCO's flat form (65 bytes ECDSA, 128 bytes SM2). */
export class SuiteSigner implements ConsensusSigner {
  readonly scheme: string;

  constructor(
    private readonly suite: CryptoSuite,
    private readonly key: KeyPair,
  ) {
    this.scheme = suite.name;
    // FISCO's flat forms: r‖s‖v for ECDSA, r‖s‖public key for SM2
    this.signatureSize = suite.name === 'sm' ? 128 : 65;
  }

  readonly signatureSize: number;
  readonly distinctPart = [0, 64] as const;
  /**
   * The last few signatures made, by digest. Both suites sign deterministically (the nonce comes
   * from key and digest), so signing a digest again gives these very bytes: a PBFT Sign and the
   * Commit that follows carry the same block signature, made once.
   */
  private readonly recent = new Map<string, Uint8Array>();

  sign(digest: Uint8Array): Uint8Array {
    const id = Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('latin1');
    let signature = this.recent.get(id);
    if (!signature) {
      signature = this.suite.signatureToBytes(this.suite.sign(digest, this.key));
      this.recent.set(id, signature);
      if (this.recent.size > 8) this.recent.delete(this.recent.keys().next().value!);
    }
    return signature;
  }

  verify(digest: Uint8Array, signature: Uint8Array, nodeId: Uint8Array): boolean {
    if (this.suite.verifyFlat) return this.suite.verifyFlat(digest, signature, nodeId);
    try {
      return this.suite.verify(digest, this.suite.signatureFromBytes(signature), nodeId);
    } catch {
      return false;
    }
  }
}

/**
 * A cheap stand-in for large simulated groups: signature = hash(secret(node) ‖ digest), where
 * the secret derives from the node id and a simulation-wide salt. Inside the simulation only the
 * node itself (or a twin sharing its identity) can produce it, so forged senders are still
 * rejected; it is worthless outside a simulation.
 */
export class SimulatedSigner implements ConsensusSigner {
  readonly scheme = 'simulated';
  private readonly secretOf = new Map<string, Uint8Array>();

  readonly signatureSize: number;
  readonly distinctPart: readonly [number, number];

  constructor(
    private readonly hash: (data: Uint8Array) => Uint8Array,
    private readonly salt: Uint8Array,
    private readonly self: Uint8Array,
  ) {
    this.signatureSize = hash(new Uint8Array(0)).length;
    this.distinctPart = [0, this.signatureSize];
  }

  sign(digest: Uint8Array): Uint8Array {
    return this.hash(concatBytes(this.secret(this.self), digest));
  }

  verify(digest: Uint8Array, signature: Uint8Array, nodeId: Uint8Array): boolean {
    const expected = this.hash(concatBytes(this.secret(nodeId), digest));
    return expected.length === signature.length && expected.every((b, i) => b === signature[i]);
  }

  private secret(nodeId: Uint8Array): Uint8Array {
    const id = Buffer.from(nodeId.buffer, nodeId.byteOffset, nodeId.byteLength).toString('latin1');
    let s = this.secretOf.get(id);
    if (!s) {
      s = this.hash(concatBytes(this.salt, nodeId));
      this.secretOf.set(id, s);
    }
    return s;
  }
}
