import { describe, expect, it } from 'vitest';
import { blockHash, checkSignatureList } from '../chain/index.js';
import { createRpcService, inProcessClient } from '../rpc/index.js';
import { lan, leaderOf, raftCluster } from './raft-cluster.test-helper.js';
import { cluster } from './sim-cluster.js';
import { expectSteadyLoadCommitted } from './steady-load.test-helper.js';

describe('4-node Raft group (simulated)', () => {
  it('elects one leader and commits blocks under a steady load; every node ends with identical blocks, roots and receipts', async () => {
    const { c, monitor } = raftCluster({ seed: 'raft-steady' });
    await expectSteadyLoadCommitted(c);
    expect(monitor.leaders.size).toBe(1); // one election, no churn on a healthy network
    expect(monitor.checks).toBe(c.sim.eventCount); // checked after every event
    // blocks are never empty, and carry n − f valid signatures by sealer index
    const g = c.group('node3')!;
    for (let n = 1; n <= g.blockNumber(); n++) {
      const { block } = (await g.blockByNumber(n))!;
      expect(block.transactions.length).toBeGreaterThan(0);
      expect(checkSignatureList(blockHash(block.header, c.suite), block.signatureList, block.header.sealerList, c.suite).valid.length).toBeGreaterThanOrEqual(3);
    }
    // followers commit most blocks themselves (the leader's certificate), not by download
    const byConsensus = c.live().reduce((sum, l) => sum + l.group.counters.blocksByConsensus, 0);
    expect(byConsensus).toBeGreaterThan(3 * g.blockNumber());
  });

  it('getConsensusStatus returns the one Raft object with leaderId and leaderIdx; getPbftView fails with -40007', async () => {
    const { c } = raftCluster({ seed: 'raft-status' });
    c.startHelloWorldLoad(5, 5_000);
    await c.sim.run({ until: 6_000 });
    const leaderIdx = (c.group('node0')!.consensusStatus() as { leaderIdx: number }).leaderIdx;
    expect(leaderIdx).toBeGreaterThanOrEqual(0);
    const client = inProcessClient(createRpcService(c.chain.node('node1')!));
    const status = await client.call<Array<Record<string, unknown>>>('getConsensusStatus', [1]);
    expect(status).toHaveLength(1);
    const sealers = c.group('node1')!.sealers();
    expect(status[0]).toMatchObject({
      accountType: 1,
      cfgErr: false,
      groupId: 1,
      leaderIdx,
      leaderId: sealers[leaderIdx],
      max_faulty_leader: 1,
      nodeNum: 4,
      nodeId: c.ids[1],
      omitEmptyBlock: true,
      protocolId: 65547,
      'sealer.0': sealers[0],
      'sealer.3': sealers[3],
      highestblockNumber: c.group('node1')!.blockNumber(),
      consensusedBlockNumber: c.group('node1')!.blockNumber() + 1,
    });
    expect(status[0]).not.toHaveProperty('currentView');
    await expect(client.call('getPbftView', [1])).rejects.toMatchObject({ code: -40007, message: expect.stringContaining('Only pbft consensus supports the view property') });
    expect(c.group('node1')!.pbftView()).toBeUndefined();
    // before any leader is known: '' and -1
    const fresh = cluster({ seed: 'raft-status-0', consensus: 'raft', network: lan });
    await fresh.sim.run({ until: 500 });
    expect(fresh.group('node0')!.consensusStatus()).toMatchObject({ leaderId: '', leaderIdx: -1 });
  });

  it('logs FISCO\'s Raft sealing and report lines', async () => {
    const { c } = raftCluster({ seed: 'raft-logs' });
    c.startHelloWorldLoad(5, 10_000);
    await c.sim.run({ until: 14_000 });
    const leader = leaderOf(c)!;
    const seals = c.logs.filter((l) => l.line.includes('[RAFTSEALER]'));
    expect(seals.length).toBeGreaterThan(5);
    expect(seals.every((l) => l.node === leader)).toBe(true);
    expect(seals[0]!.line).toMatch(/^info\|2026-01-01 \d\d:\d\d:\d\d\.\d{6}\|\[g:1\]\[CONSENSUS\]\[RAFTSEALER\]\[handleBlock\]\+{16} Generating seal,blockNumber=\d+,txNum=\d+,hash=[0-9a-f]{8}\.\.\.$/);
    // an idle leader seals (and drops) an empty block about once a second, as FISCO logs it
    expect(seals.filter((l) => l.line.includes('txNum=0')).length).toBeGreaterThanOrEqual(2);
    const reports = c.logs.filter((l) => l.node === 'node2' && l.line.includes('^^^^^^^^Report Block'));
    expect(reports.length).toBe(c.group('node2')!.blockNumber());
    expect(reports[0]!.line).toMatch(/\|\[g:1\]\[CONSENSUS\]\[RAFTENGINE\]\[#reportBlock\]\^{8}Report Block,num=1,sealer=\d+,hash=[0-9a-f]{8}\.\.\.,next=2,txNum=\d+,blockTime=\d{13}$/);
  });
});
