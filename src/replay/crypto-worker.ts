// Replay's worker (a worker thread): recorded blocks read ahead are prepared (block-prep.ts) and
// their crypto done on another core while the replay executes earlier blocks. It is sent batches
// of requests, each a block line's bytes as read from the recording and a part of its
// transactions, by the replay's thread or, on a channel of their own, by the reader thread, and
// answers each to the replay's thread: the part prepared (in slices), its receipts encoded, then
// its crypto.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { ProtocolVersion } from '../chain/index.js';
import { getSuite, type CryptoSuite } from '../crypto/index.js';
import { cryptoOfRange, FIRST_SLICE, headSlice, prepareRange, receiptsOfRange, type PreparedRange, type RangeWork } from './block-prep.js';
import type { AheadAnswer, AheadRequest } from './ahead-protocol.js';
import { utf8 } from './recording.js';
import { readyMessage } from './worker-ready.js';
import { WorkerSteps } from './worker-steps.js';

const versions = new Map<string, ProtocolVersion>();

function post(answer: AheadAnswer): void {
  const transfer: ArrayBuffer[] = [];
  const add = (arrays: ReadonlyArray<Uint8Array | Uint32Array>) => {
    for (const a of arrays) if (a.byteLength > 0) transfer.push(a.buffer as ArrayBuffer);
  };
  if (answer.step === 'prepared' && answer.prepared) add([answer.prepared.bytes, answer.prepared.offsets]);
  else if (answer.step === 'receipts' && answer.receipts) {
    const r = answer.receipts;
    add([r.encoded, r.bytes, r.offsets, r.logCounts, r.blooms, r.hashes]);
  } else if (answer.step === 'crypto' && answer.result) add([answer.result.computed, answer.result.hashes, answer.result.senders]);
  parentPort!.postMessage(answer, transfer);
}

/**
 * The line last parsed, by replay and block: the parts of a line come together, one after the
 * other. Let go of once they are prepared, so that a line's parsed JSON (several times its few MB)
 * is not copied by the collections of the steps after.
 */
let lastParsed: { readonly line: string; readonly value: unknown } | undefined;

/** The request's line: its replay and block. */
const lineOf = (request: AheadRequest) => request.key.slice(0, request.key.lastIndexOf(':'));

/** The request's line parsed (kept for its other parts), after its head where postHead posts one (throws where the line is not JSON). */
function parsed(request: AheadRequest, suite: CryptoSuite, version: ProtocolVersion): { value: unknown; head?: PreparedRange | undefined } {
  const line = lineOf(request);
  if (lastParsed?.line === line) return { value: lastParsed.value };
  const text = utf8(request.bytes);
  const head = postHead(request, text, suite, version);
  lastParsed = { line, value: JSON.parse(text) };
  return { value: lastParsed.value, head };
}

/**
 * The replays whose first long line went ahead by its head (block-prep.ts's headSlice): the
 * replay waits for that line's first transactions (it has nothing else to execute yet), and later
 * lines are prepared while it executes the ones before, so only the first is worth the head's
 * extra pass.
 */
const headed = new Set<string>();

/** The head slice for a request, posted, where it is the first part of its replay's first long line; a copy of it (its arrays go with the post). */
function postHead(request: AheadRequest, text: string, suite: CryptoSuite, version: ProtocolVersion): PreparedRange | undefined {
  const replay = request.key.slice(0, request.key.indexOf(':'));
  if (request.part !== 0 || request.parts < 2 || headed.has(replay)) return undefined;
  if (headed.size >= 64) headed.clear();
  headed.add(replay);
  const head = headSlice(text, request.number, request.parts, suite, version);
  if (!head) return undefined;
  const kept = { ...head, bytes: head.bytes.slice(), offsets: head.offsets.slice() };
  post({ key: request.key, step: 'prepared', prepared: head });
  return kept;
}

/** Step 1 for a request: its part prepared and posted; what steps 2 and 3 need, or undefined where the worker answered it whole. */
function prepare(request: AheadRequest): Prepared | undefined {
  const { key } = request;
  // the replay stopped, or got to this part's crypto first and computes it itself
  if (Atomics.load(request.claim, 0) !== 0) {
    post({ key, step: 'prepared' });
    post({ key, step: 'crypto' });
    return undefined;
  }
  let version = versions.get(request.version);
  if (!version) versions.set(request.version, (version = ProtocolVersion.parse(request.version)));
  const suite = getSuite(request.suite);
  let line: ReturnType<typeof parsed>;
  try {
    line = parsed(request, suite, version);
  } catch {
    // (a head that went is not the last slice: this one ends the part)
    post({ key, step: 'prepared' });
    post({ key, step: 'crypto' });
    return undefined;
  }
  const range = prepareRange(line.value, request.number, request.part, request.parts, suite, version, (prepared) => post({ key, step: 'prepared', prepared }), FIRST_SLICE, line.head);
  return { request, range, version };
}

/** A part prepared; its recorded receipts (JSON) are let go of once step 2 has encoded them. */
type Prepared = { readonly request: AheadRequest; range: RangeWork; readonly version: ProtocolVersion };

/** Step 2 for a prepared request, unless the replay stopped or computes its part itself. */
function receipts(prepared: Prepared): void {
  const { request, range, version } = prepared;
  const { key } = request;
  post(Atomics.load(request.claim, 0) === 2 ? { key, step: 'receipts', from: range.from } : { key, step: 'receipts', from: range.from, receipts: receiptsOfRange(range, getSuite(request.suite), version) });
  prepared.range = { ...range, receipts: [] };
}

/** Step 3 for a prepared request, unless the replay claimed it meanwhile. */
function crypto({ request, range, version }: Prepared): void {
  const { key } = request;
  post(Atomics.compareExchange(request.claim, 0, 0, 1) === 0 ? { key, step: 'crypto', result: cryptoOfRange(range, getSuite(request.suite), version) } : { key, step: 'crypto' });
}

// step 1 for every request received before anything else, then step 2 before step 3 (see WorkerSteps)
const steps = new WorkerSteps<AheadRequest, Prepared>({ prepare, receipts, crypto, allPrepared: () => (lastParsed = undefined), later: (run) => setImmediate(run) });
const onRequests = (requests: AheadRequest[]) => steps.add(requests);

parentPort!.on('message', (message: AheadRequest[] | { port: MessagePort }) => {
  if (Array.isArray(message)) onRequests(message);
  else message.port.on('message', onRequests);
});
parentPort!.postMessage(readyMessage());
