// Replay's signature worker (a worker thread): the pure crypto of recorded blocks, done on another
// core while the main thread executes earlier blocks. For each block it is sent, it re-encodes
// every signed transaction from its JSON fields and recovers its signer, and verifies every
// signatureList entry against the recorded block hash and the recorded sealer at its index.
// Results are keyed by their exact inputs (crypto-ahead.ts), so the main thread uses them only
// where it would have computed the very same thing.
import { parentPort } from 'node:worker_threads';
import { decodeTransaction, encodeSignedTransaction, ProtocolVersion } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { parseHeader, parseTransaction, transactionObjects } from './recorded-json.js';
import { blockSignatureKey, signerKey, type AheadRequest, type AheadResult } from './crypto-keys.js';

const versions = new Map<string, ProtocolVersion>();

function work(request: AheadRequest): AheadResult {
  const suite = getSuite(request.suite);
  let version = versions.get(request.version);
  if (!version) versions.set(request.version, (version = ProtocolVersion.parse(request.version)));
  const signers: Array<[string, string | null]> = [];
  const signatures: Array<[string, boolean]> = [];
  if (Atomics.compareExchange(request.claim, 0, 0, 1) !== 0) return { id: request.id, signers, signatures };
  const place = { block: request.number };
  try {
    for (const json of transactionObjects(request.block, place)) {
      try {
        const t = parseTransaction(json, place, suite, version.txGeneration);
        if (!t.body || !t.signature) continue;
        const tx = decodeTransaction(encodeSignedTransaction(t.body, version.txGeneration, t.signature), { suite, generation: version.txGeneration });
        const key = suite.recoverSigner(tx.signingHash, tx.signature);
        signers.push([signerKey(tx.signingHash, tx.signature), key ? toHexNoPrefix(key) : null]);
      } catch {
        // a transaction the main thread will reject in its own words
      }
    }
    const header = parseHeader(request.block, place, { hashRequired: true });
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
  } catch {
    // a block the main thread will reject in its own words
  }
  return { id: request.id, signers, signatures };
}

parentPort!.on('message', (request: AheadRequest) => parentPort!.postMessage(work(request)));
parentPort!.postMessage('ready');
