import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

async function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * The ports a chain may be given: from 20000 up to the first ephemeral port. The kernel hands
 * ports of its ephemeral range to outgoing connections (other tests', the nodes' own), so a
 * port found free there can be taken as a source port before the node binds it.
 */
export function listenPortRange(): { low: number; high: number } {
  let ephemeralLow = 32_768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > 0) ephemeralLow = low;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152, Linux's default at 32768; keep the lower
  }
  const low = ephemeralLow > 21_000 ? 20_000 : 1_024;
  return { low, high: Math.max(low + 1_000, ephemeralLow) - 1 };
}

/**
 * The lowest ports of the range are kept for callers that hold a block across steps, such as the
 * README test, whose later blocks reuse the ports an earlier block's chain was built with: a port
 * found free once is not checked again, so no other caller may draw it meanwhile.
 */
export const HELD_BAND_PORTS = 1_000;

/**
 * A start port with `count` consecutive ports free on every host, for a chain whose p2p,
 * channel and RPC ports follow each other (random below the ephemeral range, retried), and
 * none of them in `avoid`. Another process may still take one before the chain starts.
 * `band: 'held'` draws from the ports kept for held blocks, the default from the others.
 */
export async function freePortBlock(
  count: number,
  hosts: readonly string[] = ['127.0.0.1'],
  avoid: ReadonlySet<number> = new Set(),
  band: 'any' | 'held' = 'any',
): Promise<number> {
  const range = listenPortRange();
  // a range too small to split (not Linux's default one) is shared by both bands
  const split = range.high - range.low + 1 >= 4 * HELD_BAND_PORTS ? range.low + HELD_BAND_PORTS : undefined;
  const { low, high } = split === undefined ? range : band === 'held' ? { low: range.low, high: split - 1 } : { low: split, high: range.high };
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low + 1 - count));
    let ok = true;
    for (let p = base; p < base + count && ok; p++) {
      if (avoid.has(p)) ok = false;
      for (const host of hosts) if (ok && !(await portFree(host, p))) ok = false;
    }
    if (ok) return base;
  }
  throw new Error(`no block of ${count} free ports found in 200 tries`);
}
