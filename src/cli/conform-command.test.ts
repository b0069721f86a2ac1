import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
