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
   * signing hash → recorded sender, and the senders so registered. By object: the executor asks
   * recoverSigner with the very Transaction.signingHash registered, which "recovers" to the sender
   * itself as the public key, and address() gives that object back.
   */
  private readonly senderOf = new Map<Uint8Array, Uint8Array>();
  private readonly registered = new Set<Uint8Array>();

  constructor(readonly inner: CryptoSuite) {
    this.name = inner.name;
  }

  /** Register a transaction (by the unique digest object it carries as signing hash); returns the signature to give it. */
  register(digest: Uint8Array, sender: Uint8Array): Signature {
    this.senderOf.set(digest, sender);
    this.registered.add(sender);
    return this.name === 'ecdsa' ? UNCHECKED_ECDSA : { kind: 'sm', r: 1n, s: 1n, publicKey: sender };
  }

  /** Forget the registered transactions (after their block). */
  clear(): void {
    this.senderOf.clear();
    this.registered.clear();
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
    return this.senderOf.get(digest) ?? this.inner.recoverSigner(digest, signature);
  }
  verify(digest: Uint8Array, signature: Signature, publicKey: Uint8Array): boolean {
    return this.inner.verify(digest, signature, publicKey);
  }
  signatureFormError(signature: Signature): SignatureFormError | null {
    return this.inner.signatureFormError(signature);
  }
  address(publicKey: Uint8Array): Uint8Array {
    return this.registered.has(publicKey) ? publicKey : this.inner.address(publicKey);
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

/** The signature of every registered ECDSA transaction: never checked (the sender is given), one object for all. */
const UNCHECKED_ECDSA: Signature = Object.freeze({ kind: 'ecdsa', r: 1n, s: 1n, v: 0 });
