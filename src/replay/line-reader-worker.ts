// Replay's reader thread (a worker thread): reads recordings for the replays of the process, one
// session each (block-feed.ts's WorkerFeed), so that reading and gunzip never hold up a replay's
// own thread. Each block line (in a SharedArrayBuffer of its own) goes straight to the replay's
// workers as requests (crypto-ahead.ts) and to the replay's thread with how it went, a few lines
// per message, while the lines sent and not yet taken by the replay stay within the session's
// limits.
import { parentPort } from 'node:worker_threads';
import { readAheadFull, type FeedLimits, type PartPlan, type ReaderAnswer, type ReaderRequest } from './block-feed.js';
import { planParts, requestKey, type AheadRequest } from './ahead-protocol.js';
import { RecordingError, RecordingReader } from './recording.js';
import { readyMessage } from './worker-ready.js';

type Open = Extract<ReaderRequest, { type: 'open' }>;

interface Session {
  readonly limits: FeedLimits;
  sent: { lines: number; bytes: number };
  consumed: { lines: number; bytes: number };
  closed: boolean;
  /** The claims of the lines sent and not yet taken: set to "the replay's" when it stops, so the workers skip them. */
  readonly claims: Int32Array[][];
  /** Called when the replay took lines or closed the session. */
  wake?: () => void;
}

const sessions = new Map<number, Session>();

function hasRoom(s: Session): boolean {
  return !readAheadFull(s.sent.lines - s.consumed.lines, s.sent.bytes - s.consumed.bytes, s.limits);
}

async function read(open: Open, session: Session): Promise<void> {
  const { ports, replay, suite, version } = open.workers;
  let lines: Array<{ bytes: Uint8Array; line: number; plan: PartPlan }> = [];
  let requests: AheadRequest[][] = ports.map(() => []);
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    if (flushing) clearImmediate(flushing);
    flushing = undefined;
    if (session.closed) return;
    requests.forEach((r, w) => r.length > 0 && ports[w]!.postMessage(r));
    if (lines.length > 0) parentPort!.postMessage({ session: open.session, type: 'lines', lines } satisfies ReaderAnswer);
    lines = [];
    requests = ports.map(() => []);
  };
  const answer = (a: ReaderAnswer) => {
    if (!session.closed) parentPort!.postMessage(a);
  };
  let number = open.from;
  let turn = 0;
  let reader: RecordingReader | undefined;
  try {
    reader = await RecordingReader.open(open.file);
    for await (const line of reader.rawBlockLines()) {
      while (!hasRoom(session) && !session.closed) {
        flush();
        await new Promise<void>((resolve) => (session.wake = resolve));
      }
      if (session.closed || (open.to !== undefined && number > open.to)) break;
      const plan = ports.length === 0 ? [] : planParts(line.bytes.length, ports.length, turn);
      turn += plan.length;
      for (const p of plan) {
        requests[p.worker]!.push({ key: requestKey(replay, number, p.part), number, suite, version, bytes: line.bytes, part: p.part, parts: p.parts, claim: p.claim });
      }
      session.claims.push(plan.map((p) => p.claim));
      lines.push({ bytes: line.bytes, line: line.line, plan });
      session.sent = { lines: session.sent.lines + 1, bytes: session.sent.bytes + line.bytes.length };
      number++;
      // lines read in the same turn go together; a long one goes at once
      if (line.bytes.length >= 200_000) flush();
      else flushing ??= setImmediate(flush);
    }
    flush();
    answer({ session: open.session, type: 'end' });
  } catch (e) {
    flush();
    const line = e instanceof RecordingError ? e.line : (reader?.line ?? 0) + 1;
    answer({ session: open.session, type: 'error', line, problem: e instanceof RecordingError ? e.problem : `cannot read: ${(e as Error).message}` });
  } finally {
    reader?.close();
    for (const port of ports) port.close();
    sessions.delete(open.session);
  }
}

parentPort!.on('message', (request: ReaderRequest) => {
  if (request.type === 'open') {
    const session: Session = { limits: request.limits, sent: { lines: 0, bytes: 0 }, consumed: { lines: 0, bytes: 0 }, closed: false, claims: [] };
    sessions.set(request.session, session);
    void read(request, session);
    return;
  }
  const session = sessions.get(request.session);
  if (!session) return;
  if (request.type === 'consumed') {
    session.claims.splice(0, request.lines - session.consumed.lines);
    session.consumed = { lines: request.lines, bytes: request.bytes };
  } else {
    session.closed = true;
    // the workers skip what the replay will not take
    for (const claims of session.claims) for (const claim of claims) Atomics.compareExchange(claim, 0, 0, 2);
  }
  session.wake?.();
  session.wake = undefined;
});
parentPort!.postMessage(readyMessage());
