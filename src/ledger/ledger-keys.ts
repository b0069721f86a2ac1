import { bigintToFixedBytes, concatBytes } from '../codec/index.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** Key layout of the ledger inside a group's store (the state trie uses "s/"). */
const BLOCK = enc('l/b/');
const NUMBER_BY_HASH = enc('l/h/');
const TX_LOCATION = enc('l/t/');

export const LEDGER_KEYS = {
  block: (number: number) => concatBytes(BLOCK, bigintToFixedBytes(BigInt(number), 8)),
  numberByHash: (hash: Uint8Array) => concatBytes(NUMBER_BY_HASH, hash),
  txLocation: (txHash: Uint8Array) => concatBytes(TX_LOCATION, txHash),
  head: enc('l/m/head'),
  totals: enc('l/m/totals'),
  genesisStateRoot: enc('l/m/genesis-state-root'),
  genesisMark: enc('l/m/genesis-mark'),
} as const;
