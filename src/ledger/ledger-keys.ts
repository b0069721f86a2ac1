import { bigintToFixedBytes, concatBytes } from '../codec/index.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** Key layout of the ledger inside a group's store (the state trie uses "s/"). */
export const LEDGER_KEYS = {
  block: (number: number) => concatBytes(enc('l/b/'), bigintToFixedBytes(BigInt(number), 8)),
  numberByHash: (hash: Uint8Array) => concatBytes(enc('l/h/'), hash),
  txLocation: (txHash: Uint8Array) => concatBytes(enc('l/t/'), txHash),
  head: enc('l/m/head'),
  totals: enc('l/m/totals'),
  genesisStateRoot: enc('l/m/genesis-state-root'),
  genesisMark: enc('l/m/genesis-mark'),
} as const;
