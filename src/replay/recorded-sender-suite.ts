import type { CryptoSuite, KeyPair, RandomSource, Signature, SignatureFormError } from '../crypto/index.js';

/**
 * The chain's suite, except that transactions registered here "recover" to a sender given in
 * advance. Used for recorded transactions whose signature (or another signed field) the node did
 * not print, so they cannot be re-encoded and verified but can still be executed as the recorded
 * sender sent them (the replay report lists each as a skipped sender check); and for signed ones
 * executed as their recorded sender while their signature is checked on another thread, or whose
 * sender another thread recovered already (the replay compares before it accepts the block).
 * Everything else (hashes, block signatures, state) goes to the real suite.
 */
export class RecordedSenderSuite implements CryptoSuite {
  readonly name: CryptoSuite['name'];
  /**
   * signing hash → marker key; marker key → recorded sender. By object: the executor asks with the
   * very Transaction.signingHash registered, and asks address() with the marker returned.
   */
  private readonly markerOf = new Map<Uint8Array, Uint8Array>();
  private readonly senderOf = new Map<Uint8Array, Uint8Array>();

  constructor(readonly inner: CryptoSuite) {
    this.name = inner.name;
  }

  /** Register a transaction (by the unique digest object it carries as signing hash); returns the signature to give it. */
  register(digest: Uint8Array, sender: Uint8Array): Signature {
    const marker = new Uint8Array(64);
    marker.set(digest, 0);
    marker.set(digest, 32);
    marker[0]! ^= 0xff; // never a real key's bytes by accident of layout
    this.markerOf.set(digest, marker);
    this.senderOf.set(marker, sender);
    return this.name === 'ecdsa' ? { kind: 'ecdsa', r: 1n, s: 1n, v: 0 } : { kind: 'sm', r: 1n, s: 1n, publicKey: marker };
  }

  /** Forget the registered transactions (after their block). */
  clear(): void {
    this.markerOf.clear();
    this.senderOf.clear();
  }

  hash(data: Uint8Array): Uint8Array {
    return this.inner.hash(data);
  }
  generateKeyPair(random: RandomSource): KeyPair {
    return this.inner.generateKeyPair(random);
  }
  keyPairFromPrivateKey(privateKey: Uint8Array): KeyPair {
    return this.inner.keyPairFromPrivateKey(privateKey);
  }
  sign(digest: Uint8Array, key: KeyPair): Signature {
    return this.inner.sign(digest, key);
  }
  recoverSigner(digest: Uint8Array, signature: Signature): Uint8Array | null {
    const marker = this.markerOf.get(digest);
    if (marker) return marker;
    return this.inner.recoverSigner(digest, signature);
  }
  verify(digest: Uint8Array, signature: Signature, publicKey: Uint8Array): boolean {
    return this.inner.verify(digest, signature, publicKey);
  }
  signatureFormError(signature: Signature): SignatureFormError | null {
    return this.inner.signatureFormError(signature);
  }
  address(publicKey: Uint8Array): Uint8Array {
    const sender = this.senderOf.get(publicKey);
    if (sender) return sender;
    return this.inner.address(publicKey);
  }
  signatureToBytes(signature: Signature): Uint8Array {
    return this.inner.signatureToBytes(signature);
  }
  signatureFromBytes(bytes: Uint8Array): Signature {
    return this.inner.signatureFromBytes(bytes);
  }
  verifyFlat(digest: Uint8Array, flat: Uint8Array, publicKey: Uint8Array): boolean {
    return this.inner.verifyFlat ? this.inner.verifyFlat(digest, flat, publicKey) : this.inner.verify(digest, this.inner.signatureFromBytes(flat), publicKey);
  }
}
