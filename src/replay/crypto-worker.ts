// Replay's crypto worker (a worker thread): the pure crypto of recorded blocks read ahead
// (crypto-chunk.ts), done on another core while the replay executes earlier blocks. It is sent
// batches of requests, each a block line's text as read from the recording and a range of its
// transactions, and answers each with positional results the replay compares against the same block.
import { parentPort } from 'node:worker_threads';
import { ProtocolVersion } from '../chain/index.js';
import { getSuite } from '../crypto/index.js';
import type { AheadRequest, AheadResult } from './crypto-ahead.js';
import { computeChunk } from './crypto-chunk.js';
import type { JsonObject } from './recording.js';

const versions = new Map<string, ProtocolVersion>();

function work(request: AheadRequest): AheadResult {
  // the replay got there first and computes it itself
  if (Atomics.compareExchange(request.claim, 0, 0, 1) !== 0) return { id: request.id };
  let version = versions.get(request.version);
  if (!version) versions.set(request.version, (version = ProtocolVersion.parse(request.version)));
  let block: JsonObject;
  try {
    block = (JSON.parse(request.text) as { block: JsonObject }).block;
  } catch {
    return { id: request.id };
  }
  return { id: request.id, result: computeChunk(block, request.number, request.range, getSuite(request.suite), version) };
}

parentPort!.on('message', (requests: AheadRequest[]) => {
  for (const request of requests) {
    const answer = work(request);
    const r = answer.result;
    parentPort!.postMessage(answer, r ? [r.computed.buffer as ArrayBuffer, r.hashes.buffer as ArrayBuffer, r.senders.buffer as ArrayBuffer] : []);
  }
});
parentPort!.postMessage('ready');
