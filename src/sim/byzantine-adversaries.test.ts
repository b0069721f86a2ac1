import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../codec/index.js';
import { decodePbftMessage } from '../consensus/index.js';
import { decodeSyncMessage } from '../sync/index.js';
import { decodeFrame, type PbftDriver } from '../node/index.js';
import { chainOf, lan, minHeight, record, sealerIndex } from './byzantine.test-helper.js';
import { cluster, type Cluster } from './sim-cluster.js';

const HONEST3 = ['node0', 'node1', 'node2'];

/** PBFT Sign and Commit messages as delivered, decoded: (sender name, type, block hash). */
function pbftVotesOnWire(c: Cluster): Array<{ from: string; type: string; hash: string }> {
  const votes: Array<{ from: string; type: string; hash: string }> = [];
  c.sim.network.observe({
    delivered(from, _to, payload) {
      const frame = decodeFrame(payload);
      if ('error' in frame || frame.module !== 'pbft') return;
      const group = c.group('node0')!;
      const sealers = group.sealers();
      const m = decodePbftMessage(frame.payload, group.options.signer, (d) => group.suite.hash(d), (i) => (sealers[i] ? fromHex(sealers[i]!) : undefined));
      if (m.type === 'sign' || m.type === 'commit') votes.push({ from, type: m.type, hash: toHex(m.blockHash) });
    },
  });
  return votes;
}

describe('bad-block: a PBFT leader proposing well-formed blocks with bad contents (4 nodes, f = 1)', () => {
  const cases: Array<[string, RegExp]> = [
    ['bad-signature', /transaction \d+: .*(signature|recover|point)/i],
    ['reused-nonce', /nonce 0x[0-9a-f]+ was used in block|reuses a nonce/],
    ['on-chain', /already on chain|appears twice/],
    ['expired-block-limit', /blockLimit \d+ does not admit block/],
    ['wrong-chain-id', /chainId \d+ is not this chain's/],
    ['wrong-group-id', /groupId \d+ is not this group's/],
  ];
  it.each(cases)('%s: every honest replica refuses the proposal, the group changes view past it, and the honest chain agrees and grows', async (variant, reason) => {
    const w = record(HONEST3);
    const c = cluster({ seed: `byz-bad-${variant}`, network: lan, byzantine: { node3: { behaviour: 'bad-block', variant, fromMs: 3_000 } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 20_000);
    await c.sim.run({ until: 20_000 });

    const bad = w.of('byzantine-action', ['node3'], 'bad-proposal');
    expect(bad.length).toBeGreaterThanOrEqual(2);
    expect(bad.every((e) => e.fields.variant === variant)).toBe(true);
    expect((c.group('node3')!.consensus as PbftDriver).byzantineStats.badProposals).toBe(bad.length);
    // each honest replica refused node3's proposals with the check the variant aims at
    const byz = sealerIndex(c, 'node3');
    for (const name of HONEST3) {
      const refused = w.of('pbft-proposal-rejected', [name]).filter((e) => bad.some((b) => b.fields.height === e.fields.height && b.fields.view === e.fields.view));
      expect(refused.length, name).toBeGreaterThan(0);
      for (const e of refused) expect(String(e.fields.reason), name).toMatch(reason);
    }
    expect(w.of('pbft-viewchange-sent', HONEST3).length).toBeGreaterThan(0);
    const blocks = await chainOf(c.group('node0')!);
    expect(blocks.filter((b) => b.header.timestamp > 3_000 + blocks[0]!.header.timestamp).map((b) => b.header.sealer)).not.toContain(byz);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(10);
  });

  it.each(['wrong-state-root', 'wrong-receipts-root'])(
    '%s: its Sign and Commit go out for the hash with the root altered; no honest node signs or commits that hash',
    async (variant) => {
      const w = record(HONEST3);
      const c = cluster({ seed: `byz-bad-${variant}`, network: lan, byzantine: { node3: { behaviour: 'bad-block', variant } }, onNodeEvent: w.onNodeEvent });
      const votes = pbftVotesOnWire(c);
      c.startHelloWorldLoad(10, 20_000);
      await c.sim.run({ until: 20_000 });

      const altered = w.of('byzantine-action', ['node3'], 'altered-root');
      expect(altered.length).toBeGreaterThanOrEqual(2);
      const alteredHashes = new Set(altered.map((e) => String(e.fields.alteredHash)));
      // on the wire: node3's votes for the altered hashes, and none from an honest node
      expect(votes.filter((v) => v.from === 'node3' && alteredHashes.has(v.hash)).length).toBeGreaterThan(0);
      expect(votes.filter((v) => v.from !== 'node3' && alteredHashes.has(v.hash))).toEqual([]);
      // the real block (what the replicas executed) gathers the honest quorum and commits
      expect(minHeight(c, HONEST3)).toBeGreaterThanOrEqual(10);
      for (const name of HONEST3) for (const b of await chainOf(c.group(name)!)) expect(b.signatureList.length).toBeGreaterThanOrEqual(3);
      expect(w.monitor.conflicts).toEqual([]);
      await c.checkAgreement(HONEST3);
    },
  );
});

describe('lock-breaker: a PBFT leader that proposes another block where others committed (4 nodes, f = 1)', () => {
  it('honest sealers locked on the committed-to block refuse its block, and the locked block is the one that commits', async () => {
    const w = record(HONEST3);
    const c = cluster({ seed: 'byz-lock-breaker', network: lan, byzantine: { node3: { behaviour: 'lock-breaker' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 40_000);
    // Commits are lost for a while, again and again: sealers lock, nobody commits, the view changes
    for (let t = 3_000; t < 30_000; t += 4_000) c.sim.at(t, () => {
        c.sim.network.messageFault({ kinds: ['pbft.commit'], drop: true, durationMs: 2_500 });
      });
    await c.sim.run({ until: 40_000 });

    const breaks = w.of('byzantine-action', ['node3'], 'break-lock');
    expect(breaks.length).toBeGreaterThan(0);
    // honest sealers locked on another block executed its proposal and refused to sign it
    const locked = w.of('pbft-locked', HONEST3).filter((e) => breaks.some((b) => b.fields.height === e.fields.height && b.fields.view === e.fields.view));
    expect(locked.length).toBeGreaterThan(0);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    const heightAtLastFault = Math.max(...w.of('block-committed', ['node0']).filter((e) => e.atMs < 30_000).map((e) => Number(e.fields.number)));
    expect(minHeight(c, HONEST3)).toBeGreaterThan(heightAtLastFault);
  });
});

describe('forge-sync: a sync peer that claims blocks it does not have and serves forged ones', () => {
  const variants: Array<[string, RegExp]> = [
    ['too-few-signatures', /\d+ valid sealer signatures, \d+ needed/],
    ['non-sealer-signatures', /its sealer list is not the consensus list at its height/],
    // the real list cut short: refused for the list, before the signatures are counted
    ['short-sealer-list', /^its sealer list is not the consensus list at its height$/],
    ['other-height', /valid sealer signatures, \d+ needed/],
    ['other-fork', /its parent is not our head/],
    // the header and its signatures are real: only executing the body shows it is not the block's
    ['other-body', /^block \d+ does not re-execute to the same result: .*transactionsRoot 0x/],
  ];
  it.each(variants)('%s (PBFT): every forged block is refused, and a node catching up by sync gets the real blocks from honest peers', async (variant, reason) => {
    const w = record(HONEST3);
    const c = cluster({ seed: `byz-forge-${variant}`, network: lan, byzantine: { node3: { behaviour: 'forge-sync', variant } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 30_000);
    // node2 is down for a while, and must catch up by sync with node3 among its peers
    c.sim.at(4_000, () => c.sim.crash('node2'));
    c.sim.at(12_000, () => c.sim.restart('node2'));
    await c.sim.run({ until: 30_000 });

    const forged = w.of('byzantine-action', ['node3'], 'forged-blocks');
    expect(forged.length).toBeGreaterThan(0);
    const rejected = w.of('sync-block-rejected', HONEST3);
    expect(rejected.length).toBeGreaterThan(0);
    const byzId = c.chain.idOf('node3');
    for (const e of rejected) {
      expect(e.fields.peer).toBe(byzId);
      expect(String(e.fields.reason)).toMatch(reason);
    }
    // no honest node stored a forged block: they agree, and node2 caught up
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(w.of('block-committed', ['node2']).filter((e) => e.fields.via === 'sync').length).toBeGreaterThan(0);
    expect(c.group('node2')!.blockNumber()).toBeGreaterThanOrEqual(minHeight(c, ['node0', 'node1']) - 1);
  });

  it('greets a node that comes back with its lying status before any honest status, so the node asks it for blocks it really has', async () => {
    const w = record(HONEST3);
    const c = cluster({ seed: 'byz-forge-greet', network: lan, byzantine: { node3: { behaviour: 'forge-sync', variant: 'too-few-signatures' } }, onNodeEvent: w.onNodeEvent });
    const toNode2: Array<{ from: string; type: string; atMs: number; number?: number; askedFrom?: number; to?: string }> = [];
    c.sim.network.observe({
      delivered(from, to, payload) {
        const frame = decodeFrame(payload);
        if ('error' in frame || frame.module !== 'sync' || (to !== 'node2' && from !== 'node2')) return;
        const m = decodeSyncMessage(frame.payload);
        const atMs = c.sim.now;
        if (m.type === 'status' && to === 'node2') toNode2.push({ from, type: 'status', atMs, number: m.status.number });
        if (m.type === 'reqBlocks' && from === 'node2') toNode2.push({ from, to, type: 'reqBlocks', atMs, askedFrom: m.from });
      },
    });
    // no load after 8 s: no new block makes a peer send its status, only the periodic one (every 5 s)
    c.startHelloWorldLoad(10, 8_000);
    c.sim.at(4_000, () => c.sim.crash('node2'));
    c.sim.at(9_100, () => c.sim.restart('node2'));
    await c.sim.run({ until: 20_000 });

    const back = toNode2.filter((m) => m.atMs >= 9_100);
    const firstStatus = back.find((m) => m.type === 'status')!;
    expect(firstStatus.from).toBe('node3');
    expect(firstStatus.atMs).toBeLessThan(9_100 + 500);
    const firstRequest = back.find((m) => m.type === 'reqBlocks')!;
    expect(firstRequest.to).toBe('node3');
    // the blocks asked for are below the forger's real head: it serves real blocks with its signature alone
    expect(firstStatus.number! - 3).toBeGreaterThanOrEqual(firstRequest.askedFrom!);
    const rejected = w.of('sync-block-rejected', ['node2']);
    expect(rejected.length).toBeGreaterThan(0);
    expect(String(rejected[0]!.fields.reason)).toMatch(/1 valid sealer signatures, 3 needed/);
    // the honest peers then serve the blocks: node2 catches up, and nobody stored a forged block
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(HONEST3);
    expect(c.group('node2')!.blockNumber()).toBeGreaterThanOrEqual(minHeight(c, ['node0', 'node1']) - 1);
  });

  it('(Raft) a lagging follower refuses the forged blocks and syncs from the honest peers', async () => {
    const honest = ['node0', 'node1', 'node2', 'node3'];
    const w = record(honest);
    const c = cluster({ seed: 'byz-forge-raft', consensus: 'raft', sealers: 5, network: lan, byzantine: { node4: { behaviour: 'forge-sync', variant: 'too-few-signatures' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 30_000);
    c.sim.at(4_000, () => c.sim.crash('node2'));
    c.sim.at(12_000, () => c.sim.restart('node2'));
    await c.sim.run({ until: 30_000 });

    expect(w.of('byzantine-action', ['node4'], 'forged-blocks').length).toBeGreaterThan(0);
    const rejected = w.of('sync-block-rejected', honest);
    expect(rejected.length).toBeGreaterThan(0);
    for (const e of rejected) expect(String(e.fields.reason)).toMatch(/valid sealer signatures, 3 needed/);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(honest);
    expect(c.group('node2')!.blockNumber()).toBeGreaterThanOrEqual(minHeight(c, ['node0', 'node1']) - 1);
  });
});

describe('Raft adversaries (5 nodes, f = 2 crash faults)', () => {
  it('double-vote: it grants a second vote in a term and replays old votes, on the wire; honest nodes commit one chain', async () => {
    const honest = ['node0', 'node1', 'node2', 'node3'];
    const w = record(honest);
    const c = cluster({ seed: 'byz-double-vote', consensus: 'raft', sealers: 5, network: lan, byzantine: { node4: { behaviour: 'double-vote' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 40_000);
    // leader churn: crash whoever leads, again and again, so that elections compete
    for (let t = 4_000; t < 30_000; t += 3_000) {
      c.sim.at(t, () => {
        const leader = c.names.find((n) => c.sim.stateOf(n) === 'up' && c.group(n)?.consensusStatus().kind === 'raft' && (c.group(n)!.consensusStatus() as { leaderId: string }).leaderId === c.chain.idOf(n));
        if (leader === 'node4') {
          // the byzantine leader is cut off for a while, so that the others elect one of theirs
          const cut = c.sim.network.isolate('node4');
          c.sim.at(t + 2_000, () => c.sim.network.heal(cut));
        } else if (leader) {
          c.sim.crash(leader);
          c.sim.at(t + 2_000, () => c.sim.restart(leader));
        }
      });
    }
    await c.sim.run({ until: 40_000 });

    const second = w.of('byzantine-action', ['node4'], 'second-vote');
    const replays = w.of('byzantine-action', ['node4'], 'replay-votes');
    expect(second.length + replays.length).toBeGreaterThan(0);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(honest);
    expect(minHeight(c, honest)).toBeGreaterThanOrEqual(20);
  });

  it('conflicting-leader: as leader it sends another block at the same height to half its followers; the honest nodes still commit one chain', async () => {
    const honest = ['node0', 'node1', 'node2', 'node3'];
    const w = record(honest);
    const c = cluster({ seed: 'byz-conflicting-leader', consensus: 'raft', sealers: 5, network: lan, byzantine: { node4: { behaviour: 'conflicting-leader' } }, onNodeEvent: w.onNodeEvent });
    c.startHelloWorldLoad(10, 40_000);
    // make node4 lead: crash the others' leaders until it does
    for (let t = 3_000; t < 25_000; t += 3_000) {
      c.sim.at(t, () => {
        const leader = c.names.find((n) => c.sim.stateOf(n) === 'up' && (c.group(n)?.consensusStatus() as { leaderId?: string } | undefined)?.leaderId === c.chain.idOf(n));
        if (leader && leader !== 'node4') {
          c.sim.crash(leader);
          c.sim.at(t + 1_500, () => c.sim.restart(leader));
        }
      });
    }
    await c.sim.run({ until: 40_000 });

    const conflicting = w.of('byzantine-action', ['node4'], 'conflicting-entries');
    expect(conflicting.length).toBeGreaterThan(0);
    // followers given the conflicting block executed and accepted it (it really was a valid block)
    const accepted = w.of('raft-accepted', honest).filter((e) => conflicting.some((x) => x.fields.conflicting === e.fields.hash));
    expect(accepted.length).toBeGreaterThan(0);
    expect(w.monitor.conflicts).toEqual([]);
    await c.checkAgreement(honest);
    expect(minHeight(c, honest)).toBeGreaterThanOrEqual(10);
  });
});
