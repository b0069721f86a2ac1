import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcClient, RpcTransportError } from './rpc-client.js';

// A loopback server that reads each request and answers none of them.
let silent: Server;
let url: string;
beforeAll(async () => {
  silent = createServer((req) => req.resume());
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('JsonRpcClient: an endpoint that does not answer', () => {
  it('times out with the time it waited, as an unreachable endpoint worth asking again', async () => {
    const client = new JsonRpcClient(url, { timeoutMs: 200 });
    const failure = await client.post('{}').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RpcTransportError);
    expect(failure).toMatchObject({ message: `${url}: no answer within 0.2 s (the request timed out)`, unreachable: true, lasting: undefined });
  });

  it("is cut off when the client's signal aborts, in flight or before", async () => {
    const stop = new AbortController();
    const client = new JsonRpcClient(url, { timeoutMs: 60_000, signal: stop.signal });
    const inFlight = client.post('{}').catch((e: unknown) => e);
    setTimeout(() => stop.abort(), 50);
    expect(await inFlight).toMatchObject({ message: `${url}: no answer (stopped)`, unreachable: true });
    expect(await client.post('{}').catch((e: unknown) => e)).toMatchObject({ message: `${url}: no answer (stopped)` });
  });

  it('says which failures no retry can mend', async () => {
    expect(await new JsonRpcClient('http://127.0.0.1:1/').post('{}').catch((e: unknown) => e)).toMatchObject({ lasting: "a port fetch never connects to (the Fetch standard's blocked ports)" });
    expect(await new JsonRpcClient('ftp://127.0.0.1:8545/').post('{}').catch((e: unknown) => e)).toMatchObject({ lasting: 'fetch speaks http and https only' });
  });
});
