import { toHexNoPrefix } from '../codec/index.js';

/** FISCO abridges hashes in logs to 8 hex characters and "...". */
export function abridged(hash: Uint8Array | string): string {
  const hex = typeof hash === 'string' ? hash.replace(/^0x/, '') : toHexNoPrefix(hash);
  return `${hex.slice(0, 8)}...`;
}

/** The lines users grep for, in FISCO's wording (the sink adds `level|timestamp|`). */
export const logLines = {
  heartbeat: (connected: number) => ` [P2P][Service] heartBeat,connected count=${connected}`,
  sealing: (group: number, number: number, txs: number, nodeIdx: number, hash: Uint8Array) =>
    `[g:${group}][CONSENSUS][SEALER]++++++++++++++++ Generating seal on,blkNum=${number},tx=${txs},nodeIdx=${nodeIdx},hash=${abridged(hash)}`,
  pbftReport: (group: number, number: number, sealerIdx: number, hash: Uint8Array, txs: number, nodeIdx: number) =>
    `[g:${group}][CONSENSUS][PBFT]^^^^^^^^Report,num=${number},sealerIdx=${sealerIdx},hash=${abridged(hash)},next=${number + 1},tx=${txs},nodeIdx=${nodeIdx}`,
  viewChangeWarning: (group: number, view: number, toView: number, number: number, hash: Uint8Array, nodeIdx: number, nodeId: string) =>
    `[g:${group}][CONSENSUS][PBFT]ViewChangeWarning: not caused by omit empty block ,v=${view},toV=${toView},curNum=${number},hash=${abridged(hash)},nodeIdx=${nodeIdx},myNode=${abridged(nodeId)}`,
  raftSealing: (group: number, number: number, txs: number, hash: Uint8Array) =>
    `[g:${group}][CONSENSUS][RAFTSEALER][handleBlock]++++++++++++++++ Generating seal,blockNumber=${number},txNum=${txs},hash=${abridged(hash)}`,
  /** `blockTime`: when this node took the block, in ms since the epoch (FISCO's m_lastBlockTime). */
  raftReport: (group: number, number: number, sealer: number, hash: Uint8Array, txs: number, blockTime: number) =>
    `[g:${group}][CONSENSUS][RAFTENGINE][#reportBlock]^^^^^^^^Report Block,num=${number},sealer=${sealer},hash=${abridged(hash)},next=${number + 1},txNum=${txs},blockTime=${blockTime}`,
  /** A group's store failed: the node stops (FISCO: "CommitBlock: storage exception" and raise(SIGTERM)). */
  storageFailure: (group: number, operation: string, location: string, error: string) =>
    `[g:${group}][STORAGE] storage failure, the group stops,operation=${operation},file=${location},error=${error}`,
  /** Messages of a node in neither of the group's lists (FISCO's SyncMsgEngine "Drop unknown peer ..."). */
  nonMemberDropped: (group: number, nodeId: string, modules: string, dropped: number) =>
    `[g:${group}][SYNC] dropped messages from a node in neither the sealer nor the observer list,nodeID=${nodeId},modules=${modules},dropped=${dropped}`,
  syncApplied: (group: number, number: number, hash: Uint8Array, peer: string) =>
    `[g:${group}][SYNC]Download block commit succ,number=${number},hash=${abridged(hash)},peer=${abridged(peer)}`,
};
