import { describe, expect, it } from 'vitest';
import type { ConsensusStatus, SyncStatus } from '../node/index.js';
import { formatConsensusStatus, formatPeers, formatSyncStatus } from './format.js';

const ID = 'ab'.repeat(64);
const HASH = 'cd'.repeat(32);
const EMPTY = { blockHash: `0x${'0'.repeat(64)}`, height: -1, idx: 65535, view: 0 };

describe('formats normalise what a node hands over', () => {
  it('sync status: hashes get 0x whichever way they come, node ids lose it', () => {
    const status: SyncStatus = {
      isSyncing: true,
      protocolId: 65545,
      genesisHash: HASH,
      nodeId: `0x${ID}`,
      blockNumber: 3,
      latestHash: `0x${HASH}`,
      knownHighestNumber: 5,
      knownLatestHash: HASH,
      txPoolSize: 12,
      peers: [{ nodeId: ID, genesisHash: HASH, blockNumber: 2, latestHash: HASH }],
    };
    expect(formatSyncStatus(status, 'later')).toEqual({
      blockNumber: 3,
      genesisHash: `0x${HASH}`,
      isSyncing: true,
      latestHash: `0x${HASH}`,
      nodeId: ID,
      peers: [{ blockNumber: 2, genesisHash: `0x${HASH}`, latestHash: `0x${HASH}`, nodeId: ID }],
      protocolId: 65545,
      txPoolSize: '12',
      knownHighestNumber: 5,
      knownLatestHash: `0x${HASH}`,
    });
  });

  it('consensus status: an observer and an unknown leader report 65535; sealer keys follow the index order', () => {
    const base = {
      accountType: 0,
      allowFutureBlocks: true,
      cfgErr: false,
      consensusedBlockNumber: 8,
      groupId: 2,
      highestblockHash: HASH,
      highestblockNumber: 7,
      maxFaultyLeader: 1,
      sealers: [ID, 'ef'.repeat(64)],
      nodeIndex: -1,
      nodeId: ID,
      nodeNum: 2,
      omitEmptyBlock: true,
      protocolId: 131083,
    };
    const raft: ConsensusStatus = { ...base, kind: 'raft', leaderId: '', leaderIdx: -1 };
    expect(formatConsensusStatus(raft)).toEqual([
      expect.objectContaining({ 'node index': 65535, node_index: 65535, leaderId: '', leaderIdx: 65535, highestblockHash: `0x${HASH}`, 'sealer.0': ID, 'sealer.1': 'ef'.repeat(64) }),
    ]);
    const pbft: ConsensusStatus = {
      ...base,
      kind: 'pbft',
      connectedNodes: 1,
      currentView: 9,
      toView: 10,
      leaderFailed: true,
      prepareCache: { blockHash: HASH, height: 8, idx: 1, view: 9 },
      rawPrepareCache: EMPTY,
      committedPrepareCache: EMPTY,
      futureCache: EMPTY,
      signCacheSize: 2,
      commitCacheSize: 1,
      viewChangeCacheSize: 0,
    };
    const out = formatConsensusStatus(pbft);
    expect(out[0]).toMatchObject({ currentView: 9, toView: 10, leaderFailed: true, connectedNodes: 1 });
    expect(out[1]).toEqual({ prepareCache_blockHash: `0x${HASH}`, prepareCache_height: 8, prepareCache_idx: '1', prepareCache_view: '9' });
    expect(out.slice(5)).toEqual([{ signCache_cachedSize: '2' }, { commitCache_cachedSize: '1' }, { viewChangeCache_cachedSize: '0' }]);
  });

  it('peers: SPEC\'s nodeId and FISCO\'s NodeID; Agency and Node in the later variant only', () => {
    const peer = { nodeId: ID, ipAndPort: '127.0.0.1:30301', topics: ['t'], agency: 'agencyA', nodeName: 'node1' };
    expect(formatPeers([peer], 'earlier')).toEqual([{ IPAndPort: '127.0.0.1:30301', nodeId: ID, NodeID: ID, Topic: ['t'] }]);
    expect(formatPeers([peer], 'later')).toEqual([{ IPAndPort: '127.0.0.1:30301', nodeId: ID, NodeID: ID, Topic: ['t'], Agency: 'agencyA', Node: 'node1' }]);
    // a peer without certificate names: build_chain's default agency, an empty node name
    expect(formatPeers([{ nodeId: ID, ipAndPort: '127.0.0.1:30301', topics: [] }], 'later')[0]).toMatchObject({ Agency: 'agency', Node: '' });
  });
});
