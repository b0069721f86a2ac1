import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHashes } from './chain-checks.js';
import { ChainClient } from './chain-client.js';
import { BIN, blockNumber, chainNodes, freePortBlock, nodeLog, rpc, runningPids, sh, tempChainDir, twinchain, waitFor, type ChainNode, said } from './real-chain.js';

describe.sequential('a two-IP layout, -i, refused peers', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  let out: string;
  let nodes: ChainNode[];

  beforeAll(async () => {
    tmp = await tempChainDir('layouts');
    out = path.join(tmp.dir, 'nodes');
    const base = await freePortBlock(6, ['127.0.0.1', '127.0.0.2']);
    const built = await twinchain(['build-chain', '-l', '127.0.0.1:2,127.0.0.2:2', '-p', `${base},${base + 2},${base + 4}`, '-o', out]);
    expect(built.code, said(built)).toBe(0);
    nodes = chainNodes(out);
    expect(nodes.map((n) => n.name)).toEqual(['127.0.0.1/node0', '127.0.0.1/node1', '127.0.0.2/node0', '127.0.0.2/node1']);
  }, 60_000);

  afterAll(() => tmp?.dispose());

  it('-l 127.0.0.1:2,127.0.0.2:2 runs as one chain', async () => {
    const started = await Promise.all(['127.0.0.1', '127.0.0.2'].map((ip) => sh('bash', [path.join(out, ip, 'start_all.sh')], { timeoutMs: 120_000 })));
    expect(started.map((s) => s.code), started.map(said).join('\n')).toEqual([0, 0]);
    await waitFor('every node to see three peers', async () => (await Promise.all(nodes.map((n) => rpc<unknown[]>(n.rpcUrl, 'getPeers', [1])))).every((p) => p.length === 3), 30_000);
    const peers = await rpc<Array<{ IPAndPort: string }>>(nodes[0]!.rpcUrl, 'getPeers', [1]);
    expect(peers.some((p) => p.IPAndPort.startsWith('127.0.0.2:'))).toBe(true);
    const client = new ChainClient();
    const contract = await client.deploy(nodes[2]!.rpcUrl);
    const hash = await client.send(nodes[3]!.rpcUrl, client.signedSet(contract, 'across two IPs', (await blockNumber(nodes[3]!.rpcUrl)) + 500));
    const receipt = await client.receipt(nodes[0]!.rpcUrl, hash);
    const top = Number(receipt.blockNumber);
    await waitFor(`every node at ${top}`, async () => (await Promise.all(nodes.map((n) => blockNumber(n.rpcUrl)))).every((h) => h >= top), 20_000);
    const reference = await blockHashes(nodes[0]!, top);
    for (const n of nodes.slice(1)) expect(await blockHashes(n, top)).toEqual(reference);
  }, 180_000);

  it('a peer presenting a certificate from another chain CA is refused and logged; a plain TCP client gets nothing', async () => {
    const foreign = path.join(tmp.dir, 'foreign');
    const base = await freePortBlock(3);
    expect((await twinchain(['build-chain', '-l', '127.0.0.1:1', '-p', `${base},${base + 1},${base + 2}`, '-o', foreign])).code).toBe(0);
    const conf = path.join(foreign, '127.0.0.1', 'node0', 'conf');
    const target = nodes[0]!;
    const outcome = await new Promise<string>((resolve) => {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port: target.p2pPort,
        key: readFileSync(path.join(conf, 'node.key')),
        cert: readFileSync(path.join(conf, 'node.crt')),
        ca: readFileSync(path.join(conf, 'ca.crt')),
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.2',
        ecdhCurve: 'secp256k1:X25519:prime256v1',
      });
      let data = 0;
      socket.on('data', (d: Buffer) => (data += d.length));
      socket.on('error', (e) => resolve(`error: ${e.message}`));
      socket.on('close', () => resolve(data > 0 ? `got ${data} bytes` : 'closed without data'));
      setTimeout(() => {
        socket.destroy();
        resolve(data > 0 ? `got ${data} bytes` : 'still open, no data');
      }, 5_000);
    });
    expect(outcome).not.toMatch(/^got/);
    expect(outcome).not.toBe('still open, no data');
    await waitFor('the refusal in node0\'s log', () => /\[P2P\].*(handshake failed|refused|certificate)/i.test(nodeLog(target)), 5_000);

    const plain = await new Promise<string>((resolve) => {
      const socket = tcpConnect({ host: '127.0.0.1', port: target.p2pPort }, () => socket.write('GET / HTTP/1.1\r\n\r\n'));
      let data = 0;
      socket.on('data', (d: Buffer) => (data += d.length));
      socket.on('error', () => resolve(data > 0 ? 'answered' : 'cut off'));
      socket.on('close', () => resolve(data > 0 ? 'answered' : 'cut off'));
    });
    // a TLS server may answer garbage with a TLS alert record; what matters is that it says nothing else and hangs up
    expect(['cut off', 'answered']).toContain(plain);
    expect(await blockNumber(target.rpcUrl)).toBeGreaterThan(0);
  }, 60_000);

  it('stop_all.sh of each IP leaves no process', async () => {
    for (const ip of ['127.0.0.1', '127.0.0.2']) expect((await sh('bash', [path.join(out, ip, 'stop_all.sh')], { timeoutMs: 60_000 })).code).toBe(0);
    expect(runningPids(out)).toEqual([]);
  }, 90_000);

  it('-i makes the JSON-RPC listen on 0.0.0.0; -v 2.0.0-rc1 gives the earlier interface, which conform detects and passes', async () => {
    const wide = path.join(tmp.dir, 'wide');
    const base = await freePortBlock(3);
    expect((await twinchain(['build-chain', '-l', '127.0.0.1:1', '-p', `${base},${base + 1},${base + 2}`, '-o', wide, '-i', '-v', '2.0.0-rc1'])).code).toBe(0);
    const [node] = chainNodes(wide);
    expect(readFileSync(path.join(node!.dir, 'config.ini'), 'utf8')).toMatch(/jsonrpc_listen_ip=0\.0\.0\.0/);
    const started = await sh('bash', [path.join(node!.dir, 'start.sh')], { timeoutMs: 90_000 });
    expect(started.stdout).toMatch(/node0 start successfully/);
    expect(readFileSync(path.join(node!.dir, 'nohup.out'), 'utf8')).toMatch(/rpc 0\.0\.0\.0:/);
    expect(await blockNumber(`http://127.0.0.3:${base + 2}/`)).toBe(0);
    const conform = await twinchain(['conform', node!.rpcUrl], { timeoutMs: 120_000 });
    expect(conform.stdout).toMatch(/earlier interface variant/);
    expect(conform.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(conform.code, said(conform)).toBe(0);
    expect((await sh('bash', [path.join(node!.dir, 'stop.sh')], { timeoutMs: 30_000 })).stdout).toMatch(/stop node0 success/);
    expect(runningPids(wide)).toEqual([]);
  }, 120_000);
});

describe.sequential('an SM2/SM3 chain (-g): SM node ids from the SM2 keys, p2p over the secp256k1 TLS certificates that name them', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  afterAll(() => tmp?.dispose());

  it('builds, starts, connects, commits an SM-signed transaction on both nodes, and stops', async () => {
    tmp = await tempChainDir('sm');
    const out = path.join(tmp.dir, 'nodes');
    const base = await freePortBlock(6);
    expect((await twinchain(['build-chain', '-l', '127.0.0.1:2', '-p', `${base},${base + 2},${base + 4}`, '-o', out, '-g'])).code).toBe(0);
    const nodes = chainNodes(out);
    const started = await sh('bash', [path.join(out, '127.0.0.1', 'start_all.sh')], { timeoutMs: 120_000 });
    expect(started.code, said(started)).toBe(0);
    const peers = await waitFor('the two SM nodes to see each other', async () => {
      const list = await rpc<Array<{ nodeId: string }>>(nodes[0]!.rpcUrl, 'getPeers', [1]);
      return list.length === 1 ? list : undefined;
    }, 30_000);
    expect(peers[0]!.nodeId).toBe(readFileSync(path.join(nodes[1]!.dir, 'conf', 'gmnode.nodeid'), 'utf8').trim());
    expect((await rpc<Record<string, string>>(nodes[0]!.rpcUrl, 'getClientVersion'))['FISCO-BCOS Version']).toMatch(/ gm$/);
    const client = new ChainClient('sm');
    const contract = await client.deploy(nodes[0]!.rpcUrl);
    const hash = await client.send(nodes[1]!.rpcUrl, client.signedSet(contract, '国密', (await blockNumber(nodes[1]!.rpcUrl)) + 500));
    expect((await client.receipt(nodes[0]!.rpcUrl, hash)).status).toBe('0x0');
    expect((await sh('bash', [path.join(out, '127.0.0.1', 'stop_all.sh')], { timeoutMs: 60_000 })).code).toBe(0);
    expect(runningPids(out)).toEqual([]);
  }, 150_000);
});

describe('bad input to the real-chain commands', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  beforeAll(async () => {
    tmp = await tempChainDir('bad');
  });
  afterAll(() => tmp?.dispose());

  it.each([
    [['-l', '127.0.0.1:four'], /-l/],
    [['-l', '127.0.0.1:4', '-p', '30300,20200'], /-p/],
    [['-l', '127.0.0.1:4', '-p', '65534,20200,8545'], /-p/],
    [['-l', '127.0.0.1:4', '-p', '30300,30302,8545'], /overlap/],
    [['-l', '300.0.0.1:4'], /-l/],
  ])('build-chain %j: one line, non-zero exit, nothing written', async (args, message) => {
    const dir = path.join(tmp.dir, `never-${args.join('_').replace(/[^\w.-]/g, '')}`);
    const result = await twinchain(['build-chain', ...args, '-o', dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  }, 30_000);

  it('build-chain refuses an existing output directory and leaves it as it was', async () => {
    const dir = path.join(tmp.dir, 'existing');
    const base = await freePortBlock(3);
    expect((await twinchain(['build-chain', '-l', '127.0.0.1:1', '-p', `${base},${base + 1},${base + 2}`, '-o', dir])).code).toBe(0);
    const config = readFileSync(path.join(dir, '127.0.0.1', 'node0', 'config.ini'), 'utf8');
    const again = await twinchain(['build-chain', '-l', '127.0.0.1:1', '-p', `${base},${base + 1},${base + 2}`, '-o', dir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/exists/);
    expect(readFileSync(path.join(dir, '127.0.0.1', 'node0', 'config.ini'), 'utf8')).toBe(config);

    // a broken config.ini: the node says what and where, start.sh says it failed and where to look
    const node0 = path.join(dir, '127.0.0.1', 'node0');
    writeFileSync(path.join(node0, 'config.ini'), config.replace(/jsonrpc_listen_port=\d+/, 'jsonrpc_listen_port=eighty'));
    const direct = await twinchain(['node', '-c', path.join(node0, 'config.ini')]);
    expect(direct.code).toBe(1);
    expect(direct.stdout).toMatch(/Init failed!!! .*config\.ini:\d+: jsonrpc_listen_port: "eighty" is not a port number/);
    const started = await sh('bash', [path.join(node0, 'start.sh')], { timeoutMs: 60_000 });
    expect(started.code).not.toBe(0);
    expect(started.stdout + started.stderr).toMatch(/node0 start failed/);
    expect(runningPids(dir)).toEqual([]);
  }, 90_000);

  it('build-chain interrupted by Ctrl-C removes its temporary folder and exits 130', async () => {
    const dir = path.join(tmp.dir, 'interrupted');
    const child = spawn(process.execPath, [BIN, 'build-chain', '-l', '127.0.0.1:40', '-g', '-o', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor('the temporary build folder', () => readdirSync(tmp.dir).some((f) => f.startsWith('interrupted.building-')), 20_000, 50);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/interrupted \(SIGINT\); .*interrupted was not created/);
    await waitFor('the partial build to be removed', () => readdirSync(tmp.dir).every((f) => !f.startsWith('interrupted')), 15_000, 200);
  }, 45_000);

  it('a port already in use: the node says which one and which keys set it, exit 1', async () => {
    const dir = path.join(tmp.dir, 'busy');
    const base = await freePortBlock(3);
    expect((await twinchain(['build-chain', '-l', '127.0.0.1:1', '-p', `${base},${base + 1},${base + 2}`, '-o', dir])).code).toBe(0);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(base + 2, '127.0.0.1', resolve));
    try {
      const result = await twinchain(['node', '-c', path.join(dir, '127.0.0.1', 'node0', 'config.ini')]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(new RegExp(`Init failed!!! cannot listen for JSON-RPC on 127\\.0\\.0\\.1:${base + 2}: the address is already in use \\(EADDRINUSE\\) \\(\\[rpc\\] jsonrpc_listen_ip, jsonrpc_listen_port in .*config\\.ini\\)`));
      expect(result.stdout.trim().split('\n')).toHaveLength(2);
    } finally {
      squatter.close();
    }
  }, 30_000);

  it('twinchain node without -c, or with a missing file, says so', async () => {
    const none = await twinchain(['node']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/-c config\.ini is required/);
    const missing = await twinchain(['node', '-c', path.join(tmp.dir, 'nope', 'config.ini')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/Init failed!!! .*config\.ini: cannot read: no such file/);
  }, 30_000);
});
