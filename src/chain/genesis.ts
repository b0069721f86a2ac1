import { compareBytes, fromHex } from '../codec/index.js';
import type { BlockHeader } from './block-header.js';
import type { ProtocolVersion } from './protocol-version.js';

export type ConsensusType = 'pbft' | 'raft' | 'rpbft';

/** What `conf/group.N.genesis` says, plus observers (FISCO adds those only later, on chain). */
export interface GroupGenesis {
  readonly groupId: number;
  readonly consensusType: ConsensusType;
  /** Node ids (128 lower-case hex). */
  readonly sealers: readonly string[];
  readonly observers?: readonly string[];
  /** `[consensus] max_trans_num`, the initial tx_count_limit. */
  readonly txCountLimit?: number;
  /** `[tx] gas_limit`, the initial tx_gas_limit. */
  readonly txGasLimit?: bigint;
  /** Seconds (written to the chain from 2.6.0). */
  readonly consensusTimeout?: number;
  /** `[group] timestamp`, ms. */
  readonly timestamp: number;
  /** `[state] type`: FISCO's storage state (the default, as in FISCO) or a Merkle Patricia trie. */
  readonly stateType?: 'mpt' | 'storage';
  readonly epochSealerNum?: number;
  readonly epochBlockNum?: number;
  /** Raft: `[consensus] min_elect_time` and `max_elect_time` in ms (FISCO's defaults 1000 and 2000); not in the genesis mark. */
  readonly minElectTime?: number;
  readonly maxElectTime?: number;
}

export const GENESIS_DEFAULTS = {
  txCountLimit: 1000,
  txGasLimit: 300_000_000n,
  consensusTimeout: 3,
  stateType: 'storage',
  epochBlockNum: 1000,
  minElectTime: 1000,
  maxElectTime: 2000,
} as const;

export class GenesisError extends Error {
  override readonly name = 'GenesisError';
}

const NODE_ID = /^[0-9a-f]{128}$/;

/** Check a genesis description; every problem names the field and value. */
export function validateGenesis(genesis: GroupGenesis): void {
  if (!Number.isInteger(genesis.groupId) || genesis.groupId < 1 || genesis.groupId > 32767) {
    throw new GenesisError(`groupId must be an integer in 1..32767, got ${genesis.groupId}`);
  }
  if (genesis.sealers.length === 0) throw new GenesisError('a group needs at least one sealer');
  const seen = new Set<string>();
  for (const [field, ids] of [['sealers', genesis.sealers], ['observers', genesis.observers ?? []]] as const) {
    for (const id of ids) {
      if (!NODE_ID.test(id)) throw new GenesisError(`${field}: "${id}" is not a node id (128 lower-case hex characters)`);
      if (seen.has(id)) throw new GenesisError(`${field}: node ${id.slice(0, 16)}... is listed twice`);
      seen.add(id);
    }
  }
  const limit = genesis.txCountLimit ?? GENESIS_DEFAULTS.txCountLimit;
  if (!Number.isInteger(limit) || limit < 1) throw new GenesisError(`txCountLimit must be a positive integer, got ${limit}`);
  if ((genesis.txGasLimit ?? GENESIS_DEFAULTS.txGasLimit) < 100_000n) throw new GenesisError('txGasLimit must be at least 100000');
  const timeout = genesis.consensusTimeout ?? GENESIS_DEFAULTS.consensusTimeout;
  if (!Number.isInteger(timeout) || timeout < 3) throw new GenesisError(`consensusTimeout must be an integer of at least 3 seconds, got ${timeout}`);
  const minElect = genesis.minElectTime ?? GENESIS_DEFAULTS.minElectTime;
  const maxElect = genesis.maxElectTime ?? Math.max(minElect, GENESIS_DEFAULTS.maxElectTime);
  if (!Number.isInteger(minElect) || minElect < 4) throw new GenesisError(`minElectTime must be an integer of at least 4 ms, got ${minElect}`);
  if (!Number.isInteger(maxElect) || maxElect < minElect) throw new GenesisError(`maxElectTime must be an integer of ms not below minElectTime ${minElect}, got ${maxElect}`);
  if (!Number.isSafeInteger(genesis.timestamp) || genesis.timestamp < 0) throw new GenesisError(`timestamp must be ms since the epoch, got ${genesis.timestamp}`);
}

/** Sealers in PBFT index order (ascending node id). */
export function sortedNodeIds(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => compareBytes(fromHex(a), fromHex(b)));
}

/**
 * FISCO's genesis mark, stored as block 0's extraData: `groupId-nodeList,-consensus-state-...`
 * with the fields that exist in this version. Observers (a Twinchain addition) are appended only
 * when present, so a FISCO-shaped genesis gives FISCO's mark.
 */
export function genesisMark(genesis: GroupGenesis, version: ProtocolVersion): string {
  const sealers = version.atLeast('2.9.0') ? sortedNodeIds(genesis.sealers) : [...genesis.sealers];
  const parts: string[] = [String(genesis.groupId), sealers.map((id) => `${id},`).join(''), genesis.consensusType];
  if (version.number <= 2) parts.push('rocksdb');
  parts.push(genesis.stateType ?? GENESIS_DEFAULTS.stateType);
  if (version.atLeast('2.4.0')) parts.push('0');
  parts.push(String(genesis.txCountLimit ?? GENESIS_DEFAULTS.txCountLimit), String(genesis.txGasLimit ?? GENESIS_DEFAULTS.txGasLimit));
  if (genesis.consensusType === 'rpbft') {
    parts.push(String(genesis.epochSealerNum ?? genesis.sealers.length), String(genesis.epochBlockNum ?? GENESIS_DEFAULTS.epochBlockNum));
  }
  if (version.atLeast('2.6.0')) parts.push(String(genesis.consensusTimeout ?? GENESIS_DEFAULTS.consensusTimeout));
  if (genesis.observers && genesis.observers.length > 0) parts.push(`observers:${sortedNodeIds(genesis.observers).join(',')}`);
  return parts.join('-');
}

/** Block 0: all roots zero, empty sealer list, the genesis mark as its only extraData item. */
export function genesisHeader(genesis: GroupGenesis, version: ProtocolVersion): BlockHeader {
  validateGenesis(genesis);
  const zero = new Uint8Array(32);
  return {
    parentHash: zero,
    stateRoot: zero,
    transactionsRoot: zero,
    receiptsRoot: zero,
    dbHash: zero,
    logsBloom: new Uint8Array(256),
    number: 0,
    gasLimit: 0n,
    gasUsed: 0n,
    timestamp: genesis.timestamp,
    extraData: [new TextEncoder().encode(genesisMark(genesis, version))],
    sealer: 0,
    sealerList: [],
  };
}

/** What a genesis mark says: a GroupGenesis without the timestamp (block 0's own field). */
export type GenesisMarkFields = Omit<GroupGenesis, 'timestamp' | 'minElectTime' | 'maxElectTime'>;

/**
 * The inverse of genesisMark for this version's layout:
 * `groupId-nodeIds,-consensus-[rocksdb-]state-[0-]txCountLimit-txGasLimit[-epochSealerNum-epochBlockNum][-consensusTimeout][-observers:ids]`
 * (`rocksdb` up to 2.0.0-rc2, the `0` from 2.4.0, the epoch pair for rpbft, the timeout from
 * 2.6.0). Every problem names the field and what was found; genesisMark of the result gives the
 * mark back.
 */
export function parseGenesisMark(mark: string, version: ProtocolVersion): GenesisMarkFields {
  const parts = mark.split('-');
  let at = 0;
  const take = (field: string): string => {
    const part = parts[at++];
    if (part === undefined) throw new GenesisError(`genesis mark "${mark}": ${field} is missing (version ${version.text} layout)`);
    return part;
  };
  const integer = (field: string, text: string): number => {
    if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new GenesisError(`genesis mark: ${field} must be a decimal integer, got "${text}"`);
    return Number(text);
  };
  const groupId = integer('groupId', take('groupId'));
  const nodeList = take('node list');
  if (!nodeList.endsWith(',')) throw new GenesisError(`genesis mark: the node list must end with ",", got "${nodeList}"`);
  const sealers = nodeList.slice(0, -1).split(',');
  for (const id of sealers) if (!NODE_ID.test(id)) throw new GenesisError(`genesis mark: sealer "${id}" is not a node id (128 lower-case hex characters)`);
  const consensusType = take('consensus type');
  if (consensusType !== 'pbft' && consensusType !== 'raft' && consensusType !== 'rpbft') {
    throw new GenesisError(`genesis mark: consensus type must be pbft, raft or rpbft, got "${consensusType}"`);
  }
  if (version.number <= 2) {
    const storage = take('storage type');
    if (storage !== 'rocksdb') throw new GenesisError(`genesis mark: version ${version.text} writes "rocksdb" after the consensus type, got "${storage}"`);
  }
  const stateType = take('state type');
  if (stateType !== 'storage' && stateType !== 'mpt') throw new GenesisError(`genesis mark: state type must be storage or mpt, got "${stateType}"`);
  if (version.atLeast('2.4.0')) {
    const zero = take('the 0 field (2.4.0 and later)');
    if (zero !== '0') throw new GenesisError(`genesis mark: version ${version.text} writes "0" after the state type, got "${zero}"`);
  }
  const txCountLimit = integer('txCountLimit', take('txCountLimit'));
  const gasText = take('txGasLimit');
  integer('txGasLimit', gasText);
  const out: { -readonly [K in keyof GenesisMarkFields]: GenesisMarkFields[K] } = {
    groupId,
    consensusType,
    sealers,
    stateType,
    txCountLimit,
    txGasLimit: BigInt(gasText),
  };
  if (consensusType === 'rpbft') {
    out.epochSealerNum = integer('epochSealerNum', take('epochSealerNum (rpbft)'));
    out.epochBlockNum = integer('epochBlockNum', take('epochBlockNum (rpbft)'));
  }
  if (version.atLeast('2.6.0')) out.consensusTimeout = integer('consensusTimeout', take('consensusTimeout (2.6.0 and later)'));
  if (at < parts.length && parts[at]!.startsWith('observers:')) {
    out.observers = parts[at++]!.slice('observers:'.length).split(',');
  }
  if (at < parts.length) {
    throw new GenesisError(`genesis mark: unexpected "${parts.slice(at).join('-')}" after the last field of the version ${version.text} layout`);
  }
  return out;
}
