import { performance } from 'node:perf_hooks';
import { keccak256, loadNativeBackend, nobleBackend } from '../crypto/index.js';
import { rawHelloWorldCalls } from './raw-evm.js';

/** The signature operations and contract calls a simulated run performed, as counted in it. */
export interface MandatedWork {
  readonly signs: number;
  readonly verifies: number;
  readonly recovers: number;
  /** Transactions per committed block. */
  readonly blockSizes: ReadonlyArray<number>;
}

export interface FloorTimes {
  readonly backend: string;
  readonly secp256k1Ms: number;
  readonly evmMs: number;
}

/**
 * Times the given work done by the libraries alone, with nothing of Twinchain around it: the
 * secp256k1 backend's sign / verify / recover on distinct digests, and plain ethereumjs running
 * the HelloWorld.set calls block by block. It is a lower bound on any node doing the same work
 * with the same libraries, however lean its consensus, pool, ledger and scheduler.
 */
export async function timeMandatedWork(work: MandatedWork): Promise<FloorTimes> {
  const secp = loadNativeBackend() ?? nobleBackend;
  const key = keccak256(new TextEncoder().encode('twinchain work floor'));
  const count = Math.max(work.signs, work.verifies, work.recovers, 1);
  const digests = Array.from({ length: count }, (_, i) => keccak256(Uint8Array.of(i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff)));
  const publicKey = secp.publicKey(key);
  const warm = digests.slice(0, 200).map((d) => secp.sign(d, key));
  for (const [i, s] of warm.entries()) {
    secp.verify(digests[i]!, s.signature, publicKey);
    secp.recover(digests[i]!, s.signature, s.recid);
  }
  const signatures = new Array<{ signature: Uint8Array; recid: number }>(count);
  let start = performance.now();
  for (let i = 0; i < work.signs; i++) signatures[i] = secp.sign(digests[i]!, key);
  let secp256k1Ms = performance.now() - start;
  for (let i = work.signs; i < count; i++) signatures[i] = secp.sign(digests[i]!, key);
  start = performance.now();
  for (let i = 0; i < work.verifies; i++) if (!secp.verify(digests[i]!, signatures[i]!.signature, publicKey)) throw new Error('work floor: a signature did not verify');
  for (let i = 0; i < work.recovers; i++) if (!secp.recover(digests[i]!, signatures[i]!.signature, signatures[i]!.recid)) throw new Error('work floor: recovery failed');
  secp256k1Ms += performance.now() - start;

  const callers = Array.from({ length: 20 }, (_, i) => keccak256(Uint8Array.of(0xca, i)).subarray(12));
  // the better of two passes: the first one also warms the JIT up for ethereumjs's call path
  const evmMs = Math.min(await rawHelloWorldCalls(work.blockSizes, callers), await rawHelloWorldCalls(work.blockSizes, callers));
  return { backend: secp.name, secp256k1Ms, evmMs };
}
