import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../codec/index.js';
import { inProcessClient, inProcessFetch } from './in-process.js';
import { createMswHandler } from './msw-handler.js';
import { JsonRpcClient, RpcCallError, RpcTransportError } from './rpc-client.js';
import { rpcHarness } from './rpc-harness.test-helper.js';

describe('in-process adapter', () => {
  it('gives a fetch with the HTTP adapter\'s semantics and no socket', async () => {
    const h = await rpcHarness();
    const fetchFn = inProcessFetch(h.service, { bodyLimit: 1000 });
    const ok = await fetchFn('http://anything.local/', { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":[1]}' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x0' });
    expect((await fetchFn('http://anything.local/', { method: 'GET' })).status).toBe(405);
    expect((await fetchFn('http://anything.local/x', { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetchFn('http://anything.local/', { method: 'POST', body: 'x'.repeat(1001) })).status).toBe(413);
  });

  it('a client wired in-process sends a transaction and reads it back', async () => {
    const h = await rpcHarness();
    const client = inProcessClient(h.service);
    const tx = h.deployTx();
    expect(await client.call('sendRawTransaction', [1, toHex(tx.raw)])).toBe(toHex(tx.hash));
    await h.node.seal();
    expect(await client.call('getTransactionReceipt', [1, toHex(tx.hash)])).toMatchObject({ status: '0x0', blockNumber: '0x1' });
    await expect(client.call('getBlockNumber', [42])).rejects.toMatchObject({ code: -40001, method: 'getBlockNumber' });
    await expect(client.call('getBlockNumber', [42])).rejects.toBeInstanceOf(RpcCallError);
  });
});

describe('ids beyond 2^53 echoed exactly through the in-process fetch and msw (issue 14)', async () => {
  const h = await rpcHarness();
  const mock = setupServer(createMswHandler(h.service, 'http://ids.twinchain.test'));
  beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => mock.close());
  const body = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"getBlockNumber","params":[1]}`;

  it.each(['9007199254740993', '18446744073709551615', '-9223372036854775809'])('id %s', async (id) => {
    const inProcess = await inProcessFetch(h.service)('http://x.local/', { method: 'POST', body: body(id) });
    expect(await inProcess.text()).toContain(`"id":${id},`);
    const viaMsw = await fetch('http://ids.twinchain.test/', { method: 'POST', body: body(id) });
    expect(await viaMsw.text()).toContain(`"id":${id},`);
  });
});

describe('msw handler: a fetch-based client reaches a dev node through the global fetch', async () => {
  const h = await rpcHarness({ supportedVersion: '2.0.0-rc1' });
  const mock = setupServer(createMswHandler(h.service, 'http://node0.twinchain.test'));
  beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => mock.close());

  it('answers calls, batches and HTTP errors as the HTTP server would', async () => {
    const client = new JsonRpcClient('http://node0.twinchain.test/');
    expect(await client.call('getClientVersion')).toMatchObject({ 'FISCO-BCOS Version': '2.0.0-rc1' });
    expect(await client.send([{ jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: [1] }, { jsonrpc: '2.0', id: 2, method: 'getGroupList', params: [] }])).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x0' },
      { jsonrpc: '2.0', id: 2, result: [1] },
    ]);
    const tx = h.deployTx();
    expect(await client.call('sendRawTransaction', [1, toHex(tx.raw).slice(2)])).toBe(toHex(tx.hash));
    expect(await client.call('getPendingTxSize', [1])).toBe('0x1');
    const get = await fetch('http://node0.twinchain.test/', { method: 'GET' });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('a client pointed at nothing reports the endpoint unreachable', async () => {
    const client = new JsonRpcClient('http://127.0.0.1:1/', { timeoutMs: 2000 });
    mock.close();
    await expect(client.call('getBlockNumber', [1])).rejects.toMatchObject({ name: 'RpcTransportError', unreachable: true });
    await expect(client.call('getBlockNumber', [1])).rejects.toBeInstanceOf(RpcTransportError);
    mock.listen({ onUnhandledRequest: 'error' });
  });
});
