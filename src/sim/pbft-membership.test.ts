import { describe, expect, it } from 'vitest';
import { fromHex, toHexNoPrefix } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256 } from '../crypto/index.js';
import { encodeFrame, type Node } from '../node/index.js';
import { encodeSyncMessage } from '../sync/index.js';
import { cluster } from './sim-cluster.js';

const lan = { latency: { kind: 'uniform' as const, minMs: 2, maxMs: 20 } };
const CONSENSUS = fromHex('0000000000000000000000000000000000001003');

describe('PBFT group membership (simulated)', () => {
  it('an observer follows; a sealer added at runtime votes from the next block; a removed sealer stops', async () => {
    const c = cluster({ seed: 'membership', sealers: 4, observers: 1, spare: 1, network: lan });
    const [observer, spare, removed] = ['node4', 'node5', 'node3'];
    c.startHelloWorldLoad(5, 60_000);
    await c.sim.run({ until: 8_000 });

    // the observer keeps up without ever voting
    const g = (n: string) => c.group(n)!;
    expect(g(observer).membership()).toBe('observer');
    expect(Math.abs(g(observer).blockNumber() - g('node0').blockNumber())).toBeLessThanOrEqual(1);
    expect(g(observer).consensusStatus()).toMatchObject({ accountType: 0, nodeIndex: -1 });
    expect(g(spare).membership()).toBe('none');
    // a sealer keeps the observer among its sync peers (sync serves observers too), not the free node
    const syncPeers = g('node0').syncStatus().peers.map((p) => p.nodeId);
    expect(syncPeers).toContain(c.ids[4]);
    expect(syncPeers).not.toContain(c.ids[5]);

    // add the spare node as a sealer through the Consensus precompile
    const send = async (signature: string, nodeId: string) => {
      const tx = c.client.build({ to: CONSENSUS, data: encodeFunctionCall(signature, [nodeId], keccak256), blockLimit: BigInt(g('node0').blockNumber() + 500) });
      const result = await c.submit('node0', tx.raw);
      expect(result?.accepted).toBe(true);
      return tx.hash;
    };
    const addHash = await send('addSealer(string)', c.ids[5]!);
    await c.sim.run({ until: 16_000 });
    const added = await g('node0').transaction(addHash);
    expect(added?.receipt.status).toBe(0);
    const addedAt = added!.blockNumber;
    const sealersAt = async (n: number) => (await g('node0').blockByNumber(n))!.block.header.sealerList.map((id) => toHexNoPrefix(id));
    expect(await sealersAt(addedAt)).not.toContain(c.ids[5]); // effective from the next block
    expect(await sealersAt(addedAt + 1)).toContain(c.ids[5]);
    expect(g(spare).membership()).toBe('sealer');
    expect(g(spare).blockNumber()).toBeGreaterThan(addedAt); // it synced up
    const spareIndex = (await sealersAt(g('node0').blockNumber())).indexOf(c.ids[5]!);
    const signedBySpare = [];
    for (let n = addedAt + 1; n <= g('node0').blockNumber(); n++) {
      const b = (await g('node0').blockByNumber(n))!.block;
      const idx = b.header.sealerList.map((id) => toHexNoPrefix(id)).indexOf(c.ids[5]!);
      if (b.signatureList.some((s) => s.index === idx) || b.header.sealer === idx) signedBySpare.push(n);
    }
    expect(signedBySpare.length).toBeGreaterThan(0); // it votes
    expect(g(spare).consensusStatus()).toMatchObject({ accountType: 1, nodeIndex: spareIndex });

    // remove a sealer: it stops voting, the others go on
    const removeHash = await send('remove(string)', c.ids[3]!);
    await c.sim.run({ until: 26_000 });
    const removedAt = (await g('node0').transaction(removeHash))!.blockNumber;
    expect(await sealersAt(removedAt + 1)).not.toContain(c.ids[3]);
    expect(g(removed).membership()).toBe('none');
    const head = g('node0').blockNumber();
    expect(head).toBeGreaterThan(removedAt + 2);
    for (let n = removedAt + 1; n <= head; n++) {
      const b = (await g('node0').blockByNumber(n))!.block;
      expect(b.header.sealerList.map((id) => toHexNoPrefix(id))).not.toContain(c.ids[3]);
    }
    expect(g(removed).consensusStatus()).toMatchObject({ accountType: 0, nodeIndex: -1 });
    await c.checkAgreement();
  });
});

describe('FISCO log lines (simulated)', () => {
  it('heartbeat every 10 s with the connected count, seal and report lines on the leader', async () => {
    const c = cluster({ seed: 'logs', network: lan });
    c.startHelloWorldLoad(5, 15_000);
    await c.sim.run({ until: 21_000 });
    const of = (node: string) => c.logs.filter((l) => l.node === node).map((l) => l.line);
    const heartbeats = of('node1').filter((l) => l.includes('[P2P][Service] heartBeat,connected count='));
    expect(heartbeats).toHaveLength(2);
    expect(heartbeats[0]).toMatch(/^info\|2026-01-01 00:00:10\.\d{6}\| \[P2P\]\[Service\] heartBeat,connected count=3$/);
    const seals = c.logs.filter((l) => l.line.includes('++++++++++++++++ Generating seal on,blkNum='));
    expect(seals.length).toBeGreaterThan(5);
    expect(seals[0]!.line).toMatch(/\|\[g:1\]\[CONSENSUS\]\[SEALER\]\+{16} Generating seal on,blkNum=\d+,tx=\d+,nodeIdx=\d,hash=[0-9a-f]{8}\.\.\.$/);
    const reports = of('node2').filter((l) => l.includes('^^^^^^^^Report,'));
    expect(reports.length).toBe(c.group('node2')!.counters.blocksByConsensus);
    expect(reports[0]).toMatch(/\[g:1\]\[CONSENSUS\]\[PBFT\]\^{8}Report,num=1,sealerIdx=\d,hash=[0-9a-f]{8}\.\.\.,next=2,tx=\d+,nodeIdx=\d$/);
  });
});

describe('a node in neither list (FISCO: a free node; an SDK certificate used as a node identity)', () => {
  it('gets no blocks, cannot steer sync with a forged status, is logged once a minute; added as an observer it syncs', async () => {
    const c = cluster({ seed: 'strangers', sealers: 4, spare: 1, network: lan });
    const spare = 'node4';
    const g = (n: string) => c.group(n)!;
    // an intruder that speaks the wire itself: a forged status claiming height 2^40 and block requests
    const intruderId = 'ab'.repeat(64);
    const received: Uint8Array[] = [];
    let sent = 0;
    let send: (to: string, frame: Uint8Array) => void = () => undefined;
    c.sim.addNode(
      'intruder',
      (env) => {
        env.transport.onReceive((_from, frame) => void received.push(frame));
        send = (to, frame) => env.transport.send(to, frame);
        return undefined as unknown as Node;
      },
      { nodeId: intruderId },
    );
    c.startHelloWorldLoad(5, 12_000);
    for (const t of [...Array.from({ length: 22 }, (_, i) => 1_000 + i * 500), 61_500]) {
      c.sim.at(t, () => {
        const status = { number: 2 ** 40, genesisHash: g('node0').genesisHash, latestHash: new Uint8Array(32).fill(7) };
        if (t < 12_000) sent += 8;
        for (const id of c.ids.slice(0, 4)) {
          send(id, encodeFrame(1, 'sync', encodeSyncMessage({ type: 'status', status })));
          send(id, encodeFrame(1, 'sync', encodeSyncMessage({ type: 'reqBlocks', from: 1, count: 5 })));
        }
      });
    }
    await c.sim.run({ until: 12_500 });
    expect(g('node0').blockNumber()).toBeGreaterThan(5);
    expect(sent).toBe(22 * 8);
    // the free node stays where it was; nothing was sent back to the intruder
    expect(g(spare).blockNumber()).toBe(0);
    expect(received).toEqual([]);
    for (const n of ['node0', 'node1', 'node2', 'node3']) {
      const status = g(n).syncStatus();
      expect(status.isSyncing).toBe(false);
      expect(status.knownHighestNumber).toBeLessThan(1_000);
      expect(status.peers.map((p) => p.nodeId)).not.toContain(intruderId);
      expect(g(n).counters.nonMemberMessages).toBeGreaterThan(40);
    }
    // one warning per sender per minute, however many messages
    const drops = (node: string, id: string) => c.logs.filter((l) => l.node === node && l.line.includes(`dropped messages from a node in neither the sealer nor the observer list,nodeID=${id}`));
    expect(drops('node0', intruderId)).toHaveLength(1);
    expect(drops('node0', intruderId)[0]!.line).toMatch(/^warning\|.*\[g:1\]\[SYNC\] dropped messages .*,modules=sync,dropped=1$/);
    expect(drops('node0', c.ids[4]!)).toHaveLength(1);
    await c.sim.run({ until: 62_000 });
    expect(drops('node0', intruderId)).toHaveLength(2);
    // the second line counts the 43 held back since the first and the one that brings it
    expect(drops('node0', intruderId)[1]!.line).toMatch(/,modules=sync,dropped=44$/);

    // once the Consensus precompile lists it, its requests are answered and it catches up
    const tx = c.client.build({ to: CONSENSUS, data: encodeFunctionCall('addObserver(string)', [c.ids[4]!], keccak256), blockLimit: BigInt(g('node0').blockNumber() + 500) });
    expect((await c.submit('node0', tx.raw))?.accepted).toBe(true);
    await c.sim.run({ until: 72_000 });
    expect(g(spare).membership()).toBe('observer');
    expect(g(spare).blockNumber()).toBe(g('node0').blockNumber());
    await c.checkAgreement(['node0', 'node1', 'node2', 'node3', spare]);
  });
});
