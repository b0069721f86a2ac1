import type { ProtocolVersion } from '../chain/index.js';

/** FISCO's module ids, used as ours too: they tag messages inside a group. */
export const MODULE = { pbft: 8, sync: 9, txpool: 10, raft: 11 } as const;
export type ModuleName = keyof typeof MODULE;

const NAME_BY_ID = new Map<number, ModuleName>(Object.entries(MODULE).map(([name, id]) => [id, name as ModuleName]));

/** Our p2p frame between Twinchain nodes: group id (u16), module id (u8), then the module's payload. */
export function encodeFrame(groupId: number, module: ModuleName, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(3 + payload.length);
  out[0] = (groupId >> 8) & 0xff;
  out[1] = groupId & 0xff;
  out[2] = MODULE[module];
  out.set(payload, 3);
  return out;
}

export function decodeFrame(frame: Uint8Array): { groupId: number; module: ModuleName; payload: Uint8Array } | { error: string } {
  if (frame.length < 3) return { error: `frame of ${frame.length} bytes is shorter than its 3-byte header` };
  const module = NAME_BY_ID.get(frame[2]!);
  if (!module) return { error: `unknown module id ${frame[2]}` };
  return { groupId: (frame[0]! << 8) | frame[1]!, module, payload: frame.subarray(3) };
}

/** FISCO's protocolId from 2.0.0-rc2 on: (groupId << 16) | moduleId. */
export function protocolId(groupId: number, module: ModuleName): number {
  return groupId * 65536 + MODULE[module];
}

/**
 * The protocolId a node of `version` prints in getConsensusStatus and getSyncStatus: FISCO's
 * getGroupProtoclID shifts the group id by 8 bits while supported_version is 2.0.0-rc1 (its
 * RC1_VERSION; a group 1 PBFT status shows 264), by 16 from rc2 on (65544).
 */
export function protocolIdOf(version: ProtocolVersion, groupId: number, module: ModuleName): number {
  return version.txGeneration === 'rc1' ? groupId * 256 + MODULE[module] : protocolId(groupId, module);
}
