import { blockHash, type BlockHeader } from '../chain/index.js';
import type { Proposal } from '../consensus/index.js';
import type { CryptoSuite } from '../crypto/index.js';

const ZERO_HASH = new Uint8Array(32);

/** The block draft a proposal asks the executor to build (both consensus engines). */
export function draftOf(p: Proposal) {
  return { number: p.number, parentHash: p.parentHash, timestamp: p.timestamp, sealer: p.sealer, sealerList: p.sealerList };
}

/** The hash FISCO prints when sealing: the header before execution (roots still zero). */
export function sealedHash(p: Proposal, suite: CryptoSuite): Uint8Array {
  const header: BlockHeader = {
    ...draftOf(p),
    stateRoot: ZERO_HASH,
    transactionsRoot: ZERO_HASH,
    receiptsRoot: ZERO_HASH,
    dbHash: ZERO_HASH,
    logsBloom: new Uint8Array(256),
    gasLimit: 0n,
    gasUsed: 0n,
    extraData: [],
  };
  return blockHash(header, suite);
}
