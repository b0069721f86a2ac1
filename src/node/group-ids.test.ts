import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TransactionBuilder, type GroupGenesis } from '../chain/index.js';
import { getSuite } from '../crypto/index.js';
import { Simulation } from '../runtime/index.js';
import { Node } from './node.js';
import { decodeFrame, encodeFrame, protocolId, protocolIdOf } from './p2p-frame.js';
import { seededKeys } from './seeded-keys.test-helper.js';

// FISCO allows group ids 1..32767: a frame carries the id in two bytes, and a status's protocolId
// is (groupId << 16) | module (libprotocol/Protocol.h, rc2 and later).
describe('group ids past one byte', () => {
  it('a p2p frame carries every group id of 1..32767 and its module', () => {
    for (const groupId of [1, 255, 256, 300, 32767]) {
      for (const module of ['pbft', 'sync', 'txpool', 'raft'] as const) {
        const payload = Uint8Array.of(groupId & 0xff, 7);
        expect(decodeFrame(encodeFrame(groupId, module, payload))).toEqual({ groupId, module, payload });
      }
    }
    expect(decodeFrame(Uint8Array.of(0x01, 0x2c))).toEqual({ error: 'frame of 2 bytes is shorter than its 3-byte header' });
    expect(decodeFrame(Uint8Array.of(0x01, 0x2c, 12))).toEqual({ error: 'unknown module id 12' });
  });

  it('protocolId is (groupId << 16) | module, as FISCO prints it in getConsensusStatus and getSyncStatus', () => {
    expect(protocolId(1, 'pbft')).toBe(65544);
    expect(protocolId(1, 'sync')).toBe(65545);
    expect(protocolId(1, 'raft')).toBe(65547);
    expect(protocolId(2, 'pbft')).toBe(131080);
    expect(protocolId(300, 'txpool')).toBe(300 * 65536 + 10);
    expect(protocolId(32767, 'raft')).toBe(32767 * 65536 + 11);
  });

  it('a 2.0.0-rc1 node prints (groupId << 8) | module, as FISCO does while supported_version is RC1_VERSION', () => {
    const rc1 = ProtocolVersion.parse('2.0.0-rc1');
    expect([protocolIdOf(rc1, 1, 'pbft'), protocolIdOf(rc1, 1, 'sync'), protocolIdOf(rc1, 1, 'raft'), protocolIdOf(rc1, 3, 'pbft')]).toEqual([264, 265, 267, 776]);
    for (const later of ['2.0.0-rc2', '2.0.0', '2.11.0']) expect(protocolIdOf(ProtocolVersion.parse(later), 1, 'pbft'), later).toBe(65544);
  });

  it('nodes keeping groups 1, 300 (PBFT) and 256 (Raft) commit in each, and name each group in their statuses', async () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse('2.11.0');
    const { random, keys, ids } = seededKeys('group-ids', 4, suite);
    const at = Date.UTC(2026, 0, 1);
    const groups: GroupGenesis[] = [
      { groupId: 1, consensusType: 'pbft', sealers: ids, timestamp: at },
      { groupId: 300, consensusType: 'pbft', sealers: ids, timestamp: at },
      { groupId: 256, consensusType: 'raft', sealers: ids.slice(0, 3), observers: [ids[3]!], timestamp: at },
    ];
    const sim = new Simulation<Node>({ seed: 'group-ids', network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } } });
    ids.forEach((id, i) => sim.addNode(`node${i}`, (env) => Node.start({ env, key: keys[i]!, suite, version, groups }), { nodeId: id }));
    const node = (i: number) => sim.node(`node${i}`).handle!;
    for (const g of groups) {
      const client = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: BigInt(g.groupId) });
      for (let k = 0; k < 3; k++) sim.at(200 + k * 300, async () => void (await node(k % 3).group(g.groupId)!.submit(client.build({ to: new Uint8Array(20).fill(1), blockLimit: 400n }).raw)));
    }
    await sim.run({ until: 15_000 });
    for (const g of groups) {
      for (let i = 0; i < 4; i++) expect(node(i).group(g.groupId)!.totals().txSum, `group ${g.groupId} on node${i}`).toBe(3n);
    }
    const status = (g: number) => node(0).group(g)!;
    expect(status(1).consensusStatus()).toMatchObject({ groupId: 1, protocolId: 65544 });
    expect(status(300).consensusStatus()).toMatchObject({ groupId: 300, protocolId: 300 * 65536 + 8 });
    expect(status(256).consensusStatus()).toMatchObject({ groupId: 256, protocolId: 256 * 65536 + 11 });
    expect(status(1).syncStatus().protocolId).toBe(65545);
    expect(status(300).syncStatus().protocolId).toBe(300 * 65536 + 9);
    expect(status(256).syncStatus().protocolId).toBe(256 * 65536 + 9);
  });
});
