// The pure crypto of one recorded block, or of a range of its transactions: each signed
// transaction re-encoded from its recorded fields, hashed, and its sender recovered from the
// signature; and (for the first range) every signatureList entry verified against the recorded
// block hash and the recorded sealer at its index. Computed on the replay's own thread for a part
// of a block no worker started (the workers compute the same from what they prepared:
// block-prep.ts). The results are positional: the replayer compares them with the very
// transactions it parsed from the same block object.
import { decodeTransaction, encodeSignedTransaction, type ProtocolVersion } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import { parseHeader, parseTransaction, transactionObjects } from './recorded-json.js';
import type { JsonObject } from './recording.js';

export interface ChunkRange {
  /** First transaction index, and one past the last. */
  readonly from: number;
  readonly to: number;
  /** Verify the block's signatureList too (one range of a block does). */
  readonly signatures: boolean;
}

export interface ChunkResult {
  readonly from: number;
  /**
   * Per transaction of the range: 1 when its hash and sender were computed; 0 when the replay
   * must look itself (no signed fields recorded, a malformed transaction, or no signer recovers),
   * so that it reports the problem in its own words.
   */
  readonly computed: Uint8Array;
  /** 32 bytes per transaction: the hash of the re-encoded signed payload. */
  readonly hashes: Uint8Array;
  /** 20 bytes per transaction: the address the signature recovers to. */
  readonly senders: Uint8Array;
  /** blockSignatureKey → whether that signatureList entry verifies. */
  readonly signatures: ReadonlyArray<readonly [string, boolean]>;
  /** The recorded receipts, encoded (block-prep.ts; absent where this part was computed here). */
  readonly receipts?: ReceiptEncodings;
}

/** Recorded receipts encoded as FISCO encodes receipts, by transaction of a range. */
export interface ReceiptEncodings {
  /** 1 where the receipt could be encoded (see receiptEncoding). */
  readonly encoded: Uint8Array;
  readonly bytes: Uint8Array;
  /** Where each receipt's encoding starts, then the end. */
  readonly offsets: Uint32Array;
  /** Each encoded receipt's log count. */
  readonly logCounts: Uint32Array;
}

/** verify's inputs: the block hash, the signature bytes and the sealer's key. */
export function blockSignatureKey(hash: Uint8Array, signature: Uint8Array, sealer: Uint8Array): string {
  return `${toHexNoPrefix(hash)}:${toHexNoPrefix(signature)}:${toHexNoPrefix(sealer)}`;
}

export function computeChunk(block: JsonObject, number: number, range: ChunkRange, suite: CryptoSuite, version: ProtocolVersion): ChunkResult {
  const size = Math.max(0, range.to - range.from);
  const computed = new Uint8Array(size);
  const hashes = new Uint8Array(32 * size);
  const senders = new Uint8Array(20 * size);
  const signatures: Array<[string, boolean]> = [];
  const place = { block: number };
  try {
    const objects = transactionObjects(block, place);
    for (let i = range.from; i < range.to && i < objects.length; i++) {
      try {
        const t = parseTransaction(objects[i]!, place, suite, version.txGeneration);
        if (!t.body || !t.signature) continue;
        const tx = decodeTransaction(encodeSignedTransaction(t.body, version.txGeneration, t.signature), { suite, generation: version.txGeneration });
        const key = suite.recoverSigner(tx.signingHash, tx.signature);
        if (!key) continue;
        const k = i - range.from;
        hashes.set(tx.hash, 32 * k);
        senders.set(suite.address(key), 20 * k);
        computed[k] = 1;
      } catch {
        // a transaction the replay rejects in its own words
      }
    }
    if (range.signatures) {
      const header = parseHeader(block, place, { hashRequired: true });
      for (const entry of header.signatureList ?? []) {
        const sealer = header.sealerList[entry.index];
        if (!sealer || !header.hash) continue;
        let ok: boolean;
        try {
          ok = suite.verify(header.hash, suite.signatureFromBytes(entry.signature), sealer);
        } catch {
          continue;
        }
        signatures.push([blockSignatureKey(header.hash, entry.signature, sealer), ok]);
      }
    }
  } catch {
    // a block the replay rejects in its own words
  }
  return { from: range.from, computed, hashes, senders, signatures };
}
