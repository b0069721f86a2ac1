import { createServer } from 'node:net';

async function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A start port with `count` consecutive ports free on every host, for a chain whose p2p,
 * channel and RPC ports follow each other (random in 20000–49999, retried). Another process
 * may still take one before the chain starts; callers treat EADDRINUSE as a retry.
 */
export async function freePortBlock(count: number, hosts: readonly string[] = ['127.0.0.1']): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (let p = base; p < base + count && ok; p++) for (const host of hosts) if (!(await portFree(host, p))) ok = false;
    if (ok) return base;
  }
  throw new Error(`no block of ${count} free ports found in 50 tries`);
}
