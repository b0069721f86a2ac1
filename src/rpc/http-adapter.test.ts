import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, startHttpServer, type RpcHttpServer } from './http-adapter.js';
import { rpcHarness } from './rpc-harness.test-helper.js';

const getBlockNumber = { jsonrpc: '2.0', id: 1, method: 'getBlockNumber', params: [1] };

describe('the HTTP adapter (supertest, no port)', async () => {
  const h = await rpcHarness();
  const app = createHttpHandler(h.service, { bodyLimit: 64 * 1024 });

  it('answers POST / with application/json', async () => {
    const res = await request(app).post('/').send(getBlockNumber).expect(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x0' });
  });

  it.each(['9007199254740993', '18446744073709551615', '-9223372036854775809'])('echoes the integer id %s exactly (issue 14)', async (id) => {
    const res = await request(app).post('/').set('content-type', 'application/json').send(`{"jsonrpc":"2.0","id":${id},"method":"getBlockNumber","params":[1]}`).expect(200);
    expect(res.text).toContain(`"id":${id},`);
  });

  it('takes a body without a JSON content type (curl --data sends form encoding)', async () => {
    const res = await request(app).post('/').type('form').send(JSON.stringify(getBlockNumber)).expect(200);
    expect(JSON.parse(res.text)).toMatchObject({ result: '0x0' });
  });

  it('answers errors with HTTP 200 and a JSON-RPC error object', async () => {
    const res = await request(app).post('/').set('content-type', 'application/json').send('{oops').expect(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it.each(['get', 'put', 'delete', 'patch'] as const)('refuses %s with 405 and Allow: POST', async (method) => {
    const res = await request(app)[method]('/').expect(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toMatchObject({ error: { code: -32600 } });
  });

  it('answers other paths with 404', async () => {
    const res = await request(app).post('/rpc').send(getBlockNumber).expect(404);
    expect(res.body.error.message).toContain('/rpc');
    await request(app).post('/?x=1').send(getBlockNumber).expect(200);
  });

  it('answers an oversized body with 413 and a JSON-RPC error, and keeps serving', async () => {
    const res = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ ...getBlockNumber, params: [1, 'x'.repeat(100 * 1024)] }))
      .expect(413);
    expect(res.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('65536 bytes') } });
    await request(app).post('/').send(getBlockNumber).expect(200);
  });
});

describe('startHttpServer (a real port)', () => {
  let h: Awaited<ReturnType<typeof rpcHarness>>;
  let server: RpcHttpServer;
  beforeAll(async () => {
    h = await rpcHarness();
    server = await startHttpServer(h.service, { port: 0, bodyLimit: 1024 * 1024, maxBatch: 5 });
  });
  afterAll(() => server.close());

  const post = (body: string | Buffer, agent?: Agent, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const req = httpRequest(server.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('binds to 127.0.0.1 by default and reports its url', () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('keeps connections alive between requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    agent.on('free', (socket) => sockets.add(socket));
    for (let i = 0; i < 5; i++) {
      const res = await post(JSON.stringify(getBlockNumber), agent);
      expect(res.headers.connection).toBe('keep-alive');
      expect(JSON.parse(res.text)).toMatchObject({ result: '0x0' });
    }
    expect(sockets.size).toBe(1);
    agent.destroy();
  });

  it('applies its own batch limit', async () => {
    const res = await post(JSON.stringify(Array(6).fill(getBlockNumber)));
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('maximum of 5') } });
  });

  it('takes a body of exactly the limit and refuses one byte more', async () => {
    const exactly = (size: number) => JSON.stringify(getBlockNumber).padEnd(size, ' ');
    const at = await post(exactly(1024 * 1024));
    expect(at.status).toBe(200);
    expect(JSON.parse(at.text)).toMatchObject({ result: '0x0' });
    expect((await post(exactly(1024 * 1024 + 1))).status).toBe(413);
  });

  it('reads a UTF-8 character split between two chunks of the body as that character', async () => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getBlockByHash', params: [1, '0xünïcødé', false] }), 'utf8');
    const cut = body.indexOf(Buffer.from('ü', 'utf8')) + 1; // inside the two bytes of ü
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (r) => {
        let out = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (out += c));
        r.on('end', () => resolve(out));
      });
      req.on('error', reject);
      // two HTTP chunks: the server's parser hands each to a 'data' event of its own
      req.write(body.subarray(0, cut));
      req.end(body.subarray(cut));
    });
    expect(JSON.parse(text)).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringContaining('"0xünïcødé"') } });
  });

  it('answers a body streamed past the limit (chunked, no length) with 413', async () => {
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(server.url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, text }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      for (let i = 0; i < 6; i++) req.write(chunk);
      req.end();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: -32600 } });
  });

  it('refuses a declared length far over the limit without reading it', async () => {
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(server.url, { method: 'POST', headers: { 'content-length': String(1 << 30) } }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, text }));
      });
      req.on('error', reject);
      req.write('{');
    });
    expect(res.status).toBe(413);
  });

  it('hangs up on a body streamed far past the limit (413 or a reset), and keeps serving', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest(server.url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (r) => {
        r.resume();
        r.on('end', () => resolve(String(r.statusCode)));
        r.on('error', () => resolve('reset'));
      });
      req.on('error', () => resolve('reset'));
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const pump = (left: number) => {
        if (left === 0) return req.end();
        if (req.destroyed) return undefined;
        req.write(chunk, () => pump(left - 1));
      };
      pump(20);
    });
    expect(['413', 'reset']).toContain(outcome);
    const res = await post(JSON.stringify(getBlockNumber));
    expect(JSON.parse(res.text)).toMatchObject({ result: '0x0' });
  });

  it('survives garbage on the socket and keeps serving', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n\0\0\0'));
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.resume();
    });
    const res = await post(JSON.stringify(getBlockNumber));
    expect(JSON.parse(res.text)).toMatchObject({ result: '0x0' });
  });

  it('serves many concurrent requests, mixed with hostile ones', async () => {
    const bodies = [
      JSON.stringify(getBlockNumber),
      '{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":[-1]}',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
      '\u0000\u0001',
      JSON.stringify([getBlockNumber, getBlockNumber]),
    ];
    const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => post(bodies[i % bodies.length]!)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const codes = replies.slice(0, 5).map((r) => {
      const json = JSON.parse(r.text) as { result?: string; error?: { code: number } } | unknown[];
      return Array.isArray(json) ? json.length : (json.result ?? json.error?.code);
    });
    expect(codes).toEqual(['0x0', -32602, -32600, -32700, 2]);
  });
});

describe('the HTTP server against slow and greedy clients', async () => {
  const h = await rpcHarness();

  /** Sends one byte of a request every `everyMs`; resolves with how long the server kept the socket open. */
  const trickle = (port: number, everyMs: number, limitMs: number) =>
    new Promise<number>((resolve) => {
      const started = Date.now();
      const text = `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n${JSON.stringify(getBlockNumber)}`;
      let i = 0;
      const socket = connect(port, '127.0.0.1');
      const timer = setInterval(() => {
        if (Date.now() - started > limitMs) socket.destroy();
        else if (i < text.length) socket.write(text[i++]!);
      }, everyMs);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve(Date.now() - started);
      });
      socket.resume();
    });

  it('cuts off a client that trickles its headers, within the request time-out', async () => {
    const server = await startHttpServer(h.service, { port: 0, requestTimeoutMs: 1_000 });
    try {
      const heldMs = await trickle(server.port, 100, 5_000);
      expect(heldMs).toBeGreaterThanOrEqual(900);
      expect(heldMs).toBeLessThan(2_500);
    } finally {
      await server.close();
    }
  });

  it('cuts off a client that trickles its body, within the request time-out', async () => {
    const server = await startHttpServer(h.service, { port: 0, requestTimeoutMs: 1_000 });
    try {
      const heldMs = await new Promise<number>((resolve) => {
        const started = Date.now();
        const socket = connect(server.port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n'));
        const timer = setInterval(() => socket.write('{'), 100);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(timer);
          resolve(Date.now() - started);
        });
        socket.resume();
      });
      expect(heldMs).toBeLessThan(2_500);
    } finally {
      await server.close();
    }
  });

  /** A connection that may send `first`, and a promise of its close. */
  const openSocket = (port: number, first?: string) =>
    new Promise<{ socket: ReturnType<typeof connect>; gone: Promise<void> }>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        if (first !== undefined) socket.write(first);
        resolve({ socket, gone });
      });
      const gone = new Promise<void>((done) => socket.on('close', () => done()));
      socket.on('error', () => undefined);
      socket.resume();
    });
  const rawRequest = (port: number) =>
    new Promise<string>((resolve) => {
      const body = JSON.stringify(getBlockNumber);
      const s = connect(port, '127.0.0.1', () => s.write(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`));
      let data = '';
      s.on('data', (d: Buffer) => (data += d.toString()));
      s.on('error', () => resolve(data === '' ? 'refused' : data));
      s.on('close', () => resolve(data === '' ? 'refused' : data));
    });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('past maxConnections the oldest silent connection makes room: a complete request is served', async () => {
    const server = await startHttpServer(h.service, { port: 0, maxConnections: 3 });
    const idle = [await openSocket(server.port), await openSocket(server.port), await openSocket(server.port)];
    try {
      expect(await rawRequest(server.port)).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*"result":"0x0"/);
      await idle[0]!.gone;
      expect(idle.map((s) => s.socket.destroyed)).toEqual([true, false, false]);
      expect(server.stats()).toMatchObject({ closedSilent: 1, closedIncomplete: 0, closedIdle: 0, closedNewcomers: 0 });
    } finally {
      for (const s of idle) s.socket.destroy();
      await server.close();
    }
  });

  it('then the slowest incomplete request, then the oldest idle keep-alive connection', async () => {
    const logs: string[] = [];
    const server = await startHttpServer(h.service, { port: 0, maxConnections: 3, log: (m) => logs.push(m) });
    // a keep-alive connection that was answered once, then two incomplete requests: 20 bytes in a second, and 500 at once
    const kept = await openSocket(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${JSON.stringify(getBlockNumber).length}\r\n\r\n${JSON.stringify(getBlockNumber)}`);
    await pause(100);
    const slow = await openSocket(server.port, 'POST / HTTP/1.1\r\nHost:');
    const fast = await openSocket(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n${'{'.repeat(450)}`);
    await pause(300);
    // each request stays open, answered (a keep-alive connection newer than `kept`)
    const later: Array<ReturnType<typeof connect>> = [];
    const request = async () => {
      const { socket } = await openSocket(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${JSON.stringify(getBlockNumber).length}\r\n\r\n${JSON.stringify(getBlockNumber)}`);
      later.push(socket);
      return new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
    };
    try {
      expect(await request()).toMatch(/^HTTP\/1\.1 200 OK/);
      await slow.gone;
      expect([kept.socket.destroyed, fast.socket.destroyed]).toEqual([false, false]);
      expect(await request()).toMatch(/^HTTP\/1\.1 200 OK/);
      await fast.gone;
      expect(kept.socket.destroyed).toBe(false);
      expect(await request()).toMatch(/^HTTP\/1\.1 200 OK/);
      await kept.gone;
      expect(later.map((l) => l.destroyed)).toEqual([false, false, false]);
      expect(server.stats()).toMatchObject({ closedSilent: 0, closedIncomplete: 2, closedIdle: 1, closedNewcomers: 0 });
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/^\[RPC\] too many connections \(limit 3\): closed 1 to make room/);
    } finally {
      for (const l of later) l.destroy();
      for (const s of [kept, slow, fast]) s.socket.destroy();
      await server.close();
    }
  });

  it('never closes a connection whose complete request is being answered: a newcomer past the limit goes instead', async () => {
    const slowService = { handle: (body: string) => pause(400).then(() => h.service.handle(body)) } as unknown as typeof h.service;
    const server = await startHttpServer(slowService, { port: 0, maxConnections: 2 });
    try {
      const answers = Promise.all([rawRequest(server.port), rawRequest(server.port)]);
      await pause(150);
      expect(await rawRequest(server.port)).toBe('refused');
      for (const a of await answers) expect(a).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*"result":"0x0"/);
      expect(server.stats()).toMatchObject({ closedNewcomers: 1, closedSilent: 0 });
    } finally {
      await server.close();
    }
  });

  it('with 300 hostile connections held open (re-opened as they close) past a limit of 200, every request of a normal client succeeds', async () => {
    const server = await startHttpServer(h.service, { port: 0, maxConnections: 200 });
    let stopped = false;
    const sockets = new Set<ReturnType<typeof connect>>();
    const hostile = () => {
      if (stopped) return;
      const socket = connect(server.port, '127.0.0.1');
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        setImmediate(hostile);
      });
    };
    for (let i = 0; i < 300; i++) hostile();
    try {
      await pause(300);
      let ok = 0;
      for (let i = 0; i < 50; i++) {
        const res = await fetch(server.url, { method: 'POST', body: JSON.stringify(getBlockNumber), signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        if (res && ((await res.json()) as { result?: string }).result === '0x0') ok++;
      }
      expect(ok).toBe(50);
      expect(server.stats().connections).toBeLessThanOrEqual(201);
      expect(server.stats().closedSilent).toBeGreaterThan(100);
    } finally {
      stopped = true;
      for (const s of sockets) s.destroy();
      await server.close();
    }
  });
});
