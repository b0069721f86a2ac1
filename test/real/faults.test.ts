import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdConnections, LocalChain, needOpenFiles, sleep, strangerSession, waitFor, type LocalNode } from '../../src/bench/local-chain.js';

// The fault suite on one 4-node PBFT chain of real processes (quorum 3): kill -9 of the leader
// under load, a frozen follower, two of four down, a failing disk, a peer outside the group, a
// flood of idle connections. The long trials with their figures are `npm run bench -- faults`.
describe.sequential('faults on a real 4-node PBFT chain, built and started under umask 000', () => {
  let chain: LocalChain;
  let nodes: readonly LocalNode[];
  const others = (...out: LocalNode[]) => nodes.filter((n) => !out.includes(n));

  beforeAll(async () => {
    chain = await LocalChain.build({ count: 4, prefix: 'faults', umask: '000' });
    nodes = chain.nodes;
    await chain.startAll('000');
    await waitFor('every node to see its three peers', async () => (await Promise.all(nodes.map((n) => chain.peers(n)))).every((p) => p === 3), 30_000);
  }, 120_000);

  afterAll(async () => {
    if (chain) {
      await chain.stopAll();
      chain.dispose();
    }
  });

  /** Under load on `targets`, the chain commits `blocks` more blocks. */
  const commits = async (targets: readonly LocalNode[], blocks: number, timeoutMs = 30_000) => {
    const from = Math.max(...(await chain.heights(targets)));
    await waitFor(`${targets.map((n) => n.name).join(', ')} to commit ${blocks} more blocks`, async () => (await chain.heights(targets)).every((h) => h >= from + blocks), timeoutMs, 100);
  };

  it('file modes: keys 0600; configs, certificates 0644; folders 0755; the data, the logs, nohup.out and node.pid the node\'s alone (0700/0600)', () => {
    const modes = new Map<string, string>();
    const walk = (p: string) => {
      const st = statSync(p);
      modes.set(path.relative(nodes[0]!.dir, p) || '.', (st.mode & 0o777).toString(8));
      if (st.isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    };
    walk(nodes[0]!.dir);
    const of = (pattern: RegExp) => [...new Set([...modes].filter(([p]) => pattern.test(p)).map(([, m]) => m))];
    expect(modes.get('conf/node.key')).toBe('600');
    for (const f of ['config.ini', 'conf/node.crt', 'conf/ca.crt', 'conf/group.1.genesis', 'conf/group.1.ini', 'conf/node.nodeid']) expect(modes.get(f), f).toBe('644');
    expect([modes.get('.'), modes.get('conf'), modes.get('start.sh')]).toEqual(['755', '755', '755']);
    expect([modes.get('nohup.out'), modes.get('node.pid')]).toEqual(['600', '600']);
    expect(of(/^(data|log)$|^data\/.*\/$/)).toEqual(['700']);
    expect(of(/^data\/group1$/)).toEqual(['700']);
    expect(of(/^data\/group1\/[^/]+$/)).toEqual(['600']);
    expect(of(/^log\/log_/)).toEqual(['600']);
    // under umask 000 build-chain's files would have been 0666, folders 0777
    expect([...modes.values()].some((m) => /[2367]$/.test(m))).toBe(false);
  });

  it('kill -9 of the leader under load: the others keep committing; restarted, it catches up with its earlier blocks unchanged', async () => {
    const leader = await waitFor('a leader', () => chain.leader(), 20_000);
    const load = chain.load(() => others(leader));
    try {
      await commits(nodes, 2);
      const before = await chain.height(leader);
      const earlier = await chain.blockHashes(leader, 1, before);
      await chain.kill9(leader);
      await commits(others(leader), 3);
      await chain.start(leader);
      const target = Math.max(...(await chain.heights(others(leader))));
      await chain.caughtUp([leader], target, 30_000);
      expect(await chain.blockHashes(leader, 1, before)).toEqual(earlier);
      expect((await chain.consistent()).ok).toBe(true);
    } finally {
      expect((await load.stop()).sent).toBeGreaterThan(0);
    }
  }, 120_000);

  it('a follower frozen (SIGSTOP) for 3 s under load: the others go on; resumed (SIGCONT), it catches up', async () => {
    const leader = await waitFor('a leader', () => chain.leader(), 20_000);
    const frozen = others(leader)[0]!;
    const load = chain.load(() => others(frozen));
    try {
      const frozenAt = Date.now();
      chain.signal(frozen, 'SIGSTOP');
      await commits(others(frozen), 2);
      await sleep(Math.max(0, 3_000 - (Date.now() - frozenAt)));
      chain.signal(frozen, 'SIGCONT');
      await chain.caughtUp([frozen], Math.max(...(await chain.heights(others(frozen)))), 30_000);
      expect((await chain.consistent()).ok).toBe(true);
    } finally {
      await load.stop();
      chain.signal(frozen, 'SIGCONT');
    }
  }, 90_000);

  it('two of four down: nothing commits; back with failing disks, one at a block commit and one at the PBFT lock, each exits 1 saying so (error line with file and operation, stdout); restarted cleanly, all four go on and agree', async () => {
    const [lockVictim, commitVictim] = [nodes[2]!, nodes[3]!];
    const load = chain.load(() => others(lockVictim, commitVictim));
    try {
      await chain.kill9(lockVictim);
      await chain.kill9(commitVictim);
      const stalled = Math.max(...(await chain.heights(others(lockVictim, commitVictim))));
      await sleep(2_000);
      // without a quorum (3 of 4) nothing commits; a block already agreed on may still land
      expect(Math.max(...(await chain.heights(others(lockVictim, commitVictim))))).toBeLessThanOrEqual(stalled + 1);
      // the commit victim fails at the first block it syncs; the lock victim, once synced, at its first lock
      const runs = [
        { node: commitVictim, kind: 'commit', run: chain.runDirect(commitVictim, { TWINCHAIN_STORAGE_FAULT: 'commit' }) },
        { node: lockVictim, kind: 'lock', run: chain.runDirect(lockVictim, { TWINCHAIN_STORAGE_FAULT: 'lock' }) },
      ];
      for (const { node, kind, run } of runs) {
        const exited = await Promise.race([run.exit, sleep(60_000).then(() => undefined)]);
        expect(exited, `${node.name} did not exit on the injected ${kind} fault`).toBeDefined();
        expect(exited!.code).toBe(1);
        const dataDir = path.join(node.dir, 'data', 'group1');
        expect(exited!.stdout).toContain(`storage failure in group 1: write of ${dataDir} failed: EIO: input/output error (injected fault); the node stops`);
        expect(exited!.stdout).toMatch(/Twinchain program exit with an error: write of .* failed/);
        const log = chain.log(node);
        expect(log).toContain(`injected storage fault fired,kind=${kind}`);
        expect(log).toMatch(new RegExp(`^error\\|.*\\[g:1\\]\\[STORAGE\\] storage failure, the group stops,operation=write,file=${dataDir.replace(/[.]/g, '\\.')},error=`, 'm'));
        expect(log).toMatch(/^error\|.*\[INITIALIZER\] storage failure, the node stops,group=1,operation=write/m);
        await expect(chain.height(node)).rejects.toThrow();
      }
      await Promise.all([chain.start(lockVictim), chain.start(commitVictim)]);
      await commits(nodes, 2, 60_000);
      expect((await chain.consistent()).ok).toBe(true);
    } finally {
      await load.stop();
    }
  }, 180_000);

  it('a peer with the chain\'s SDK certificate (in no group list): its block requests get nothing, a forged 2^40 status steers nothing, and it is logged', async () => {
    const sdk = path.join(chain.ipDir, 'sdk');
    const identity = { key: readFileSync(path.join(sdk, 'sdk.key')), cert: readFileSync(path.join(sdk, 'sdk.crt')), ca: readFileSync(path.join(sdk, 'ca.crt')) };
    const target = nodes[0]!;
    const [genesis] = await chain.blockHashes(target, 0, 0);
    const session = await strangerSession(
      target,
      identity,
      [
        { type: 'status', status: { number: 2 ** 40, genesisHash: Buffer.from(genesis!.slice(2), 'hex'), latestHash: new Uint8Array(32).fill(7) } },
        { type: 'reqBlocks', from: 1, count: 5 },
      ],
      2_000,
    );
    expect(session).toEqual({ connected: true, frames: 0 });
    const status = await chain.rpc<{ isSyncing: boolean; knownHighestNumber: number }>(target, 'getSyncStatus');
    expect(status.isSyncing).toBe(false);
    expect(status.knownHighestNumber).toBeLessThan(1_000_000);
    const sdkId = readFileSync(path.join(sdk, 'sdk.publickey'), 'utf8').trim();
    expect(chain.log(target)).toMatch(new RegExp(`^warning\\|.*\\[g:1\\]\\[SYNC\\] dropped messages from a node in neither the sealer nor the observer list,nodeID=${sdkId},modules=sync,dropped=1$`, 'm'));
  }, 30_000);

  it('250 idle connections held on every p2p port: a node killed and restarted is back with its three peers within 10 s of being up', async () => {
    needOpenFiles(4 * 250, 'holding 250 connections on each of 4 ports');
    const floods = nodes.map((n) => holdConnections(n.p2pPort, 250));
    const victim = nodes[2]!;
    try {
      await waitFor('the floods in place', () => floods.every((f) => f.open() >= 240), 15_000, 100);
      await chain.kill9(victim);
      await chain.start(victim);
      // from the node being up ("is running"): how long its boot takes is not the flood's doing
      const up = Date.now();
      await waitFor(`${victim.name} back with three peers`, async () => (await chain.peers(victim)) === 3, 20_000, 100);
      expect(Date.now() - up).toBeLessThan(10_000);
      for (const n of others(victim)) expect(await chain.peers(n)).toBe(3);
    } finally {
      for (const f of floods) f.stop();
    }
  }, 90_000);

  it('stop_all.sh leaves no process behind', async () => {
    const stopped = await chain.stopAll();
    expect(stopped.code).toBe(0);
    expect(nodes.map((n) => chain.pid(n))).toEqual([undefined, undefined, undefined, undefined]);
  }, 60_000);
});
