import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHashes, killAndRecover, leaderOf, nodeIdOf } from './chain-checks.js';
import { ChainClient } from './chain-client.js';
import { BIN, blockNumber, chainNodes, freePortBlock, kill9, nodeLog, pidOf, rpc, runningPids, sh, tempChainDir, twinchain, waitFor, type ChainNode, said } from './real-chain.js';

describe.sequential('a real 3-node Raft chain: kill -9 of a follower and of the leader under load', () => {
  let tmp: Awaited<ReturnType<typeof tempChainDir>>;
  let out: string;
  let nodes: ChainNode[];
  const client = new ChainClient();
  let contract: string;

  beforeAll(async () => {
    tmp = await tempChainDir('raft');
    out = path.join(tmp.dir, 'nodes');
    const base = await freePortBlock(9);
    // this chain keeps a trie (--state mpt); the PBFT suite's chain keeps FISCO's storage state
    const built = await twinchain(['build-chain', '-l', '127.0.0.1:3', '-p', `${base},${base + 3},${base + 6}`, '-o', out, '-c', 'raft', '--state', 'mpt']);
    expect(built.code, said(built)).toBe(0);
    nodes = chainNodes(out);
    const started = await sh('bash', [path.join(out, '127.0.0.1', 'start_all.sh')], { timeoutMs: 120_000 });
    expect(started.code, said(started)).toBe(0);
    await waitFor('every node to see two peers', async () => (await Promise.all(nodes.map((n) => rpc<unknown[]>(n.rpcUrl, 'getPeers', [1])))).every((p) => p.length === 2), 30_000);
    contract = await client.deploy(nodes[0]!.rpcUrl);
  }, 180_000);

  afterAll(() => tmp?.dispose());

  it('--state mpt: the group file says so, and blocks carry a trie root and a zero dbHash', async () => {
    expect(readFileSync(path.join(nodes[0]!.dir, 'conf', 'group.1.genesis'), 'utf8')).toMatch(/\[state\]\n\s+type=mpt\n/);
    const block = await rpc<{ stateRoot: string; dbHash: string }>(nodes[0]!.rpcUrl, 'getBlockByNumber', [1, '0x1', false]);
    expect(block.dbHash).toBe(`0x${'0'.repeat(64)}`);
    expect(block.stateRoot).not.toBe(block.dbHash);
  });

  for (const role of ['a follower', 'the leader'] as const) {
    it(`kill -9 of ${role}: the other two keep committing; after start.sh it catches up with its earlier blocks unchanged`, () => killAndRecover(client, contract, nodes, role), 180_000);
  }

  it('a failing disk at a Raft vote: the voter exits 1 with the error line, no vote leaves it; restarted, the group elects and goes on, consistent', async () => {
    const leaderId = await leaderOf(nodes[0]!);
    const leader = nodes.find((n) => nodeIdOf(n) === leaderId)!;
    const voter = nodes.find((n) => n !== leader)!;
    kill9(voter);
    // the voter in the foreground, its disk failing at the next vote it makes
    const child = spawn(process.execPath, [BIN, 'node', '-c', 'config.ini'], { cwd: voter.dir, env: { ...process.env, TWINCHAIN_STORAGE_FAULT: 'vote' }, stdio: ['ignore', 'pipe', 'pipe'] });
    writeFileSync(path.join(voter.dir, 'node.pid'), `${child.pid}\n`);
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let code: number | null | undefined;
    void exited.then((c) => (code = c));
    await waitFor(`${voter.name} up, or already out`, async () => code !== undefined || (await blockNumber(voter.rpcUrl)) >= 0, 30_000);
    // the leader gone, the two left must elect: the voter votes (for itself or the other), and that write fails
    if (code === undefined) kill9(leader);
    expect(await exited).toBe(1);
    const data = path.join(voter.dir, 'data', 'group1');
    expect(stdout).toContain(`storage failure in group 1: write of ${data} failed: EIO: input/output error (injected fault); the node stops`);
    expect(nodeLog(voter)).toMatch(/^error\|.*\[g:1\]\[STORAGE\] storage failure, the group stops,operation=write,file=/m);
    for (const n of [leader, voter]) if (pidOf(n) === undefined) expect((await sh('bash', [path.join(n.dir, 'start.sh')], { timeoutMs: 90_000 })).code).toBe(0);
    const contractCall = client.signedSet(contract, 'after the vote failure', (await blockNumber(nodes[0]!.rpcUrl)) + 500);
    const hash = await client.send(nodes[0]!.rpcUrl, contractCall);
    const receipt = await client.receipt(nodes[0]!.rpcUrl, hash, 60_000);
    await waitFor('all three at the receipt\'s block', async () => (await Promise.all(nodes.map((n) => blockNumber(n.rpcUrl)))).every((h) => h >= Number(receipt.blockNumber)), 30_000);
    const top = Number(receipt.blockNumber);
    const reference = await blockHashes(nodes[0]!, top);
    for (const n of nodes.slice(1)) expect(await blockHashes(n, top)).toEqual(reference);
  }, 150_000);

  it('a JSON-RPC client sending a byte a second is cut off within 10 s', async () => {
    const heldMs = await new Promise<number>((resolve) => {
      const started = Date.now();
      const url = new URL(nodes[0]!.rpcUrl);
      const text = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"getBlockNumber","params":[1]}';
      let i = 0;
      const socket = connect(Number(url.port), url.hostname);
      const timer = setInterval(() => (i < text.length && Date.now() - started < 30_000 ? socket.write(text[i++]!) : socket.destroy()), 1_000);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve(Date.now() - started);
      });
      socket.resume();
    });
    expect(heldMs).toBeGreaterThanOrEqual(7_000);
    expect(heldMs).toBeLessThanOrEqual(10_000);
  }, 40_000);

  it('without -i the JSON-RPC port answers on 127.0.0.1 only', async () => {
    const port = new URL(nodes[0]!.rpcUrl).port;
    await expect(rpc(`http://127.0.0.3:${port}/`, 'getBlockNumber', [1])).rejects.toThrow();
    expect(await blockNumber(nodes[0]!.rpcUrl)).toBeGreaterThan(0);
    const stopped = await sh('bash', [path.join(out, '127.0.0.1', 'stop_all.sh')], { timeoutMs: 60_000 });
    expect(stopped.code, said(stopped)).toBe(0);
    expect(runningPids(out)).toEqual([]);
  }, 90_000);
});
