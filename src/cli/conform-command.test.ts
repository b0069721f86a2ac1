import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcService, startHttpServer, type RpcHttpServer } from '../rpc/index.js';
import { DevNode } from '../rpc/testing/index.js';
import { captureIo as capture } from './capture-io.test-helper.js';
import { commands } from './commands.js';
import { main } from './main.js';

describe('twinchain conform', () => {
  let node: DevNode;
  let server: RpcHttpServer;
  let dir: string;
  beforeAll(async () => {
    node = await DevNode.create({ removedGroupIds: [2] });
    node.startSealing(20);
    server = await startHttpServer(createRpcService(node), { port: 0 });
    dir = await mkdtemp(path.join(tmpdir(), 'twinchain-conform-'));
  });
  afterAll(async () => {
    await node.stopSealing();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the pass/fail table, writes --json and exits 0 when all pass', async () => {
    const io = capture();
    const file = path.join(dir, 'report.json');
    const code = await main(['conform', server.url, '--group', '1', '--removed-group', '2', '--json', file], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/^conformance of http:\/\/127\.0\.0\.1:\d+\/, group 1$/m);
    expect(io.stdout).toMatch(/^what the checks expect: docs\/json-rpc\.md in the Twinchain package$/m);
    expect(io.stdout).toMatch(/^PASS +lifecycle +call: HelloWorld\.get\(\)/m);
    // skips: the other consensus's check, getPeers' Agency/Node (a lone dev node has no peers), the pending sighting if the block came first
    expect(io.stdout).toMatch(/\d+ checks: \d+ passed, 0 failed, [1-3] skipped/);
    expect(io.stdout).toMatch(/^PASS +lenient +the integer id 2\^53 \+ 1 is echoed digit for digit/m);
    expect(io.stdout).toMatch(/^PASS +lenient +call: "value": 0 \(a JSON number\)/m);
    const json = JSON.parse(await readFile(file, 'utf8')) as { failed: number; results: unknown[]; variant: string };
    expect(json).toMatchObject({ failed: 0, variant: 'later' });
    expect(json.results.length).toBeGreaterThan(50);
  });

  it('exits 1 when a check fails', async () => {
    const io = capture();
    expect(await main(['conform', server.url.replace('http://', ''), '--variant', 'earlier'], io)).toBe(1);
    expect(io.stdout).toMatch(/^FAIL +variant +getClientVersion: Chain Id and Supported Version only in the later variant/m);
  });

  // before: the HTML server got 54 checks and was called "earlier interface variant (detected)"
  describe('an endpoint that is not a FISCO node: exit 2, saying what it answered, no checks run', () => {
    let other: Server;
    let url = '';
    const replies: Record<string, { type: string; body: string; status?: number }> = {
      '/html': { type: 'text/html', body: '<!DOCTYPE html><html><body>It works!</body></html>' },
      '/json': { type: 'application/json', body: '{"hello":"world"}' },
      '/eth': { type: 'application/json', body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method getClientVersion does not exist/is not available"}}' },
      '/string': { type: 'application/json', body: '{"jsonrpc":"2.0","id":1,"result":"Geth/v1.13.0"}' },
      '/nothing': { type: 'text/plain', body: '', status: 404 },
    };
    beforeAll(async () => {
      other = createServer((req, res) => {
        const reply = replies[req.url ?? ''] ?? replies['/nothing']!;
        req.resume();
        res.writeHead(reply.status ?? 200, { 'content-type': reply.type }).end(reply.body);
      });
      other.listen(0, '127.0.0.1');
      await once(other, 'listening');
      url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      other.close();
      await once(other, 'close');
    });
    it.each([
      ['/html', 'HTTP 200 (text/html) with a body that is not JSON: "<!DOCTYPE html><html><body>It works!</body></html>"'],
      ['/json', 'JSON that is not a JSON-RPC 2.0 reply: {"hello":"world"}'],
      ['/eth', 'the JSON-RPC error -32601 "the method getClientVersion does not exist/is not available"'],
      ['/string', 'a result without a "<product> Version" field: "Geth/v1.13.0"'],
      ['/nothing', 'HTTP 404 (text/plain) with an empty body'],
    ])('%s', async (where, got) => {
      const io = capture();
      expect(await main(['conform', `${url}${where}`], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain conform: ${url}${where} does not answer getClientVersion like a FISCO BCOS node: it got ${got}\n`);
      expect(io.stdout).toBe('');
    });
  });

  // before: the whole suite ran first, then "cannot write <dir>: EISDIR: illegal operation on a directory, open '<dir>'"
  it('--json that cannot be written: one line with the path and the reason, exit 2, before any check', async () => {
    for (const [json, reason] of [
      [dir, 'it is a folder'],
      [path.join(dir, 'missing', 'c.json'), `the folder ${path.join(dir, 'missing')} does not exist`],
    ] as const) {
      await mkdir(dir, { recursive: true });
      const io = capture();
      expect(await main(['conform', 'http://127.0.0.1:1/', '--json', json], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain conform: cannot write ${json}: ${reason}\n`);
    }
  });

  it('exits 2 when the endpoint is unreachable, or the usage is wrong', async () => {
    for (const args of [['http://127.0.0.1:1/'], [], ['ftp://x'], [server.url, '--group', '0'], [server.url, '--variant', 'middle']]) {
      const io = capture();
      expect(await main(['conform', ...args], io)).toBe(2);
      expect(io.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('cites the interface reference that ships in the repository, never a file users do not have', async () => {
    expect(existsSync(new URL('../../docs/json-rpc.md', import.meta.url))).toBe(true);
    const io = capture();
    expect(await main(['conform', '--help'], io)).toBe(0);
    expect(io.stdout).toContain('docs/json-rpc.md');
    for (const command of commands) expect(`${command.summary}\n${command.help}`, command.name).not.toMatch(/SPEC/);
  });
});
