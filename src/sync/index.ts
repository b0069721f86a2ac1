export {
  BlockSync,
  MAX_BLOCKS_PER_REQUEST,
  MAX_SHARDS,
  REQUEST_TIMEOUT_PER_BLOCK_MS,
  STATUS_INTERVAL_MS,
  BAD_PEER_PENALTY_MS,
  type ChainStatus,
  type SyncOutput,
  type SyncRequest,
} from './block-sync.js';
export { encodeSyncMessage, decodeSyncMessage, SyncDecodeError, SYNC_TYPES, type SyncMessage } from './sync-wire.js';
