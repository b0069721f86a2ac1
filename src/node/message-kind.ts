import { PBFT_TYPES, RAFT_TYPES } from '../consensus/index.js';
import { SYNC_TYPES } from '../sync/index.js';
import { MODULE } from './p2p-frame.js';

const kindsOf = (module: string, types: Readonly<Record<string, number>>): string[] => Object.keys(types).map((t) => `${module}.${t}`);

/** Every message kind `messageKind` can name: module.packet, e.g. "pbft.commit", "raft.voteResp", "sync.blocks". */
export const MESSAGE_KINDS: readonly string[] = Object.freeze([...kindsOf('pbft', PBFT_TYPES), ...kindsOf('raft', RAFT_TYPES), ...kindsOf('sync', SYNC_TYPES)]);

/** Kind names by module id, then by packet type code. */
const BY_MODULE = new Map<number, ReadonlyMap<number, string>>([
  [MODULE.pbft, new Map(Object.entries(PBFT_TYPES).map(([t, code]) => [code, `pbft.${t}`]))],
  [MODULE.raft, new Map(Object.entries(RAFT_TYPES).map(([t, code]) => [code, `raft.${t}`]))],
  [MODULE.sync, new Map(Object.entries(SYNC_TYPES).map(([t, code]) => [code, `sync.${t}`]))],
]);

/**
 * The kind of a p2p frame (see p2p-frame.ts) for message-kind faults, e.g. "pbft.commit", read
 * from its header and the first item of its RLP list without decoding the rest; undefined for
 * frames of other modules or ones that do not look like a module message. Pure and cheap: the
 * virtual network calls it on each message while a message-kind fault is in force.
 */
export function messageKind(frame: Uint8Array): string | undefined {
  if (frame.length < 5) return undefined;
  const types = BY_MODULE.get(frame[2]!);
  if (types === undefined) return undefined;
  // the payload (from byte 3) is an RLP list: short (0xc0–0xf7) or long (0xf8–0xff, then the length's bytes)
  const head = frame[3]!;
  if (head < 0xc0) return undefined;
  const first = head <= 0xf7 ? 4 : 4 + (head - 0xf7);
  if (first >= frame.length) return undefined;
  // the packet type: a single byte below 0x80 is itself, 0x80 is the empty string (0), 0x81 one byte follows
  const item = frame[first]!;
  const code = item < 0x80 ? item : item === 0x80 ? 0 : item === 0x81 && first + 1 < frame.length ? frame[first + 1]! : undefined;
  return code === undefined ? undefined : types.get(code);
}
