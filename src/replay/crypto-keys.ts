// Keys of replay's precomputed crypto results: the exact inputs of each computation.
import { toHexNoPrefix } from '../codec/index.js';
import type { Signature } from '../crypto/index.js';
import type { JsonObject } from './recording.js';

export interface AheadRequest {
  readonly id: number;
  readonly number: number;
  readonly suite: 'ecdsa' | 'sm';
  readonly version: string;
  readonly block: JsonObject;
  /**
   * Who computes this block, claimed with compareExchange from 0: 1 = the worker (the replay
   * waits for its answer), 2 = the replay itself (it got there first; the worker skips the block).
   */
  readonly claim: Int32Array;
}

export interface AheadResult {
  readonly id: number;
  /** signerKey → the recovered public key (hex), null when none recovers. */
  readonly signers: ReadonlyArray<readonly [string, string | null]>;
  /** blockSignatureKey → whether the signature verifies. */
  readonly signatures: ReadonlyArray<readonly [string, boolean]>;
}

/** recoverSigner's inputs: the signing hash and every signature field. */
export function signerKey(digest: Uint8Array, signature: Signature): string {
  const tail = signature.kind === 'ecdsa' ? String(signature.v) : toHexNoPrefix(signature.publicKey);
  return `${toHexNoPrefix(digest)}:${signature.r.toString(16)}:${signature.s.toString(16)}:${tail}`;
}

/** verify's inputs: the block hash, the signature bytes and the sealer's key. */
export function blockSignatureKey(hash: Uint8Array, signature: Uint8Array, sealer: Uint8Array): string {
  return `${toHexNoPrefix(hash)}:${toHexNoPrefix(signature)}:${toHexNoPrefix(sealer)}`;
}
