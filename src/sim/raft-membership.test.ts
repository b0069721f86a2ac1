import { describe, expect, it } from 'vitest';
import { fromHex, toHexNoPrefix } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { keccak256 } from '../crypto/index.js';
import { leaderOf, raftCluster, raftOf } from './raft-cluster.test-helper.js';

const CONSENSUS = fromHex('0000000000000000000000000000000000001003');

describe('Raft group membership (simulated)', () => {
  it('an observer follows without voting; a sealer added at runtime takes part from the next block; the removed leader steps down and the others go on', async () => {
    const { c, monitor } = raftCluster({ seed: 'raft-membership', sealers: 4, observers: 1, spare: 1 });
    const [observer, spare] = ['node4', 'node5'];
    c.startHelloWorldLoad(5, 60_000);
    await c.sim.run({ until: 8_000 });
    const g = (n: string) => c.group(n)!;

    // the observer keeps up by block sync, never votes, never leads
    expect(g(observer).membership()).toBe('observer');
    expect(Math.abs(g(observer).blockNumber() - g('node0').blockNumber())).toBeLessThanOrEqual(1);
    expect(g(observer).consensusStatus()).toMatchObject({ accountType: 0, nodeIndex: -1, cfgErr: true });
    expect(raftOf(c, observer)).toMatchObject({ role: 'follower', term: 0, votedTerm: 0 });
    expect(g(observer).counters.blocksByConsensus).toBe(0);
    expect(g(spare).membership()).toBe('none');

    const send = async (signature: string, nodeId: string) => {
      const tx = c.client.build({ to: CONSENSUS, data: encodeFunctionCall(signature, [nodeId], keccak256), blockLimit: BigInt(g('node0').blockNumber() + 500) });
      expect((await c.submit('node0', tx.raw))?.accepted).toBe(true);
      return tx.hash;
    };
    const sealersAt = async (n: number) => (await g('node0').blockByNumber(n))!.block.header.sealerList.map((id) => toHexNoPrefix(id));

    // add the spare node as a sealer through the Consensus precompile
    const addHash = await send('addSealer(string)', c.ids[5]!);
    await c.sim.run({ until: 18_000 });
    const added = await g('node0').transaction(addHash);
    expect(added?.receipt.status).toBe(0);
    const addedAt = added!.blockNumber;
    expect(await sealersAt(addedAt)).not.toContain(c.ids[5]); // effective from the next block
    expect(await sealersAt(addedAt + 1)).toContain(c.ids[5]);
    expect(g(spare).membership()).toBe('sealer');
    expect(g(spare).blockNumber()).toBeGreaterThan(addedAt + 3);
    // it takes part: it holds the leader's blocks before they commit and commits them itself
    expect(g(spare).counters.blocksByConsensus).toBeGreaterThan(0);
    const spareIndex = (await sealersAt(g('node0').blockNumber())).indexOf(c.ids[5]!);
    expect(g(spare).consensusStatus()).toMatchObject({ accountType: 1, nodeIndex: spareIndex, nodeNum: 5, maxFaultyLeader: 2 });
    expect(raftOf(c, spare)!.term).toBe(raftOf(c, leaderOf(c)!)!.term);

    // remove the leader itself: it stops leading, the others elect a new one and go on
    const removed = leaderOf(c)!;
    const ref = c.names.find((n) => ![removed, observer, spare].includes(n))!;
    const removeHash = await send('remove(string)', c.ids[c.names.indexOf(removed)]!);
    await c.sim.run({ until: 30_000 });
    const removedAt = (await g(ref).transaction(removeHash))!.blockNumber;
    const refSealers = async (n: number) => (await g(ref).blockByNumber(n))!.block.header.sealerList.map((id) => toHexNoPrefix(id));
    expect(await refSealers(removedAt + 1)).not.toContain(c.ids[c.names.indexOf(removed)]);
    expect(g(removed).membership()).toBe('none');
    expect(raftOf(c, removed)!.role).toBe('follower');
    expect(g(removed).consensusStatus()).toMatchObject({ accountType: 0, nodeIndex: -1 });
    const next = leaderOf(c)!;
    expect(next).not.toBe(removed);
    expect(g(ref).blockNumber()).toBeGreaterThan(removedAt + 3);
    for (let n = removedAt + 1; n <= g(ref).blockNumber(); n++) {
      const b = (await g(ref).blockByNumber(n))!.block;
      expect(b.header.sealerList.map((id) => toHexNoPrefix(id))).not.toContain(c.ids[c.names.indexOf(removed)]);
      expect(b.signatureList.length).toBeGreaterThanOrEqual(3); // n − f of the 4 sealers left
    }
    // like FISCO's free node, the removed one is out of the group's traffic: it stays where it was
    expect(g(removed).blockNumber()).toBe(removedAt);
    await c.checkAgreement();
    expect(monitor.leaders.size).toBeGreaterThanOrEqual(2);
  });
});
