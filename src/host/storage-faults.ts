import { bytesEqual } from '../codec/index.js';
import { LEDGER_KEYS } from '../ledger/index.js';
import { decodeRaftState, PBFT_LOCK_KEY, RAFT_STATE_KEY } from '../node/index.js';
import type { FaultyStore, StoreCall } from '../storage/index.js';
import { ConfigError } from './ini-file.js';

/**
 * Fault injection for fault tests of real node processes: the environment variable names a
 * write the node's disk fails at, e.g. `TWINCHAIN_STORAGE_FAULT=commit:3` (the third block
 * commit after start fails with EIO). The failure then takes the same path as a real one.
 */
export const STORAGE_FAULT_VARIABLE = 'TWINCHAIN_STORAGE_FAULT';

/** Which write fails: a block commit, a PBFT lock, a Raft vote (a new votedTerm), or any write. */
export type StorageFaultKind = 'commit' | 'lock' | 'vote' | 'write';

export interface StorageFaultSpec {
  readonly kind: StorageFaultKind;
  /** The how-manieth matching write after start fails (1 = the first). */
  readonly nth: number;
}

const KINDS: readonly StorageFaultKind[] = ['commit', 'lock', 'vote', 'write'];

/** `kind[:n]`, or undefined when unset or empty. */
export function parseStorageFault(text: string | undefined): StorageFaultSpec | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const m = /^\s*([a-z]+)(?::(\d+))?\s*$/.exec(text);
  const kind = m?.[1] as StorageFaultKind | undefined;
  const nth = m?.[2] === undefined ? 1 : Number(m[2]);
  if (!m || !KINDS.includes(kind!) || !Number.isSafeInteger(nth) || nth < 1) {
    throw new ConfigError(`${STORAGE_FAULT_VARIABLE}="${text}": expected ${KINDS.join('|')}, optionally :N (the N-th such write fails), e.g. commit:3`);
  }
  return { kind: kind!, nth };
}

const puts = (call: StoreCall, key: Uint8Array) => call.operations.some((op) => op.type === 'put' && bytesEqual(op.key, key));

/** Arms `store` so that the `spec.nth` write of `spec.kind` fails; `fired` resolves with the failed call once it did. */
export async function armStorageFault(store: FaultyStore, spec: StorageFaultSpec): Promise<{ readonly fired: Promise<StoreCall> }> {
  let votedTerm = -1;
  if (spec.kind === 'vote') {
    const stored = await store.get(RAFT_STATE_KEY);
    votedTerm = stored ? decodeRaftState(stored).votedTerm : 0;
  }
  const matches = (call: StoreCall): boolean => {
    if (call.operation === 'read') return false;
    switch (spec.kind) {
      case 'write':
        return true;
      case 'commit':
        return puts(call, LEDGER_KEYS.head);
      case 'lock':
        return puts(call, PBFT_LOCK_KEY);
      case 'vote': {
        const op = call.operations.find((o) => o.type === 'put' && bytesEqual(o.key, RAFT_STATE_KEY));
        if (op?.type !== 'put') return false;
        const term = decodeRaftState(op.value).votedTerm;
        if (term <= votedTerm) return false;
        votedTerm = term;
        return true;
      }
    }
  };
  let seen = 0;
  return { fired: store.failNext({ when: (call) => matches(call) && ++seen === spec.nth }) };
}
