import { describe, expect, it } from 'vitest';
import { encodePbftMessage, encodeRaftMessage, SimulatedSigner, SuiteSigner, type PbftMessage, type RaftMessage } from '../consensus/index.js';
import { getSuite, keccak256 } from '../crypto/index.js';
import { encodeSyncMessage } from '../sync/index.js';
import { MESSAGE_KINDS, messageKind } from './message-kind.js';
import { encodeFrame } from './p2p-frame.js';

const hash = (b: number) => new Uint8Array(32).fill(b);
const suite = getSuite('ecdsa');
const key = suite.generateKeyPair((n) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff));
const real = new SuiteSigner(suite, key);
const simulated = new SimulatedSigner(keccak256, new Uint8Array([1]), new Uint8Array(64).fill(3));

const proposal = (transactions: number) => ({
  number: 7,
  parentHash: hash(1),
  timestamp: 1_767_225_600_000,
  sealer: 1,
  sealerList: [new Uint8Array(64).fill(1), new Uint8Array(64).fill(2)],
  transactions: Array.from({ length: transactions }, (_, i) => new Uint8Array(120).fill(i)),
});

const pbft: Array<[string, PbftMessage]> = [
  ['pbft.prepare', { type: 'prepare', height: 7, view: 0, idx: 1, proposal: proposal(0) }],
  ['pbft.prepare', { type: 'prepare', height: 7, view: 300, idx: 1, proposal: proposal(600) }], // list length in 3 bytes
  ['pbft.sign', { type: 'sign', height: 7, view: 2, idx: 0, blockHash: hash(2), blockSignature: new Uint8Array(65).fill(4) }],
  ['pbft.commit', { type: 'commit', height: 7, view: 2, idx: 3, blockHash: hash(2), blockSignature: new Uint8Array(65).fill(4) }],
  ['pbft.viewchange', { type: 'viewchange', height: 6, view: 5, idx: 2, blockHash: hash(3) }],
];
const raft: Array<[string, RaftMessage]> = [
  ['raft.voteReq', { type: 'voteReq', term: 0, idx: 0, height: 0, blockHash: hash(1), lastHeight: 0, lastEntryTerm: 0, lastLeaderTerm: 0 }],
  ['raft.voteResp', { type: 'voteResp', term: 4, idx: 1, height: 3, blockHash: hash(1), candidateTerm: 4, flag: 'granted', lastLeaderTerm: 3 }],
  ['raft.heartbeat', { type: 'heartbeat', term: 4, idx: 1, height: 3, blockHash: hash(1), seq: 9, headSignatures: [], pending: { height: 4, blockHash: hash(5), proposal: proposal(40) } }],
  ['raft.heartbeatResp', { type: 'heartbeatResp', term: 4, idx: 2, height: 3, blockHash: hash(1), seq: 9 }],
];

describe('messageKind', () => {
  it('names every PBFT, Raft and sync packet of a real frame, short and long RLP lists, real and simulated signatures', () => {
    const seen = new Set<string>();
    for (const signer of [real, simulated]) {
      for (const [kind, m] of pbft) {
        const frame = encodeFrame(1, 'pbft', encodePbftMessage(m, signer, keccak256));
        expect(messageKind(frame), kind).toBe(kind);
        seen.add(kind);
      }
      for (const [kind, m] of raft) {
        const frame = encodeFrame(300, 'raft', encodeRaftMessage(m, signer, keccak256));
        expect(messageKind(frame), kind).toBe(kind);
        seen.add(kind);
      }
    }
    const sync = [
      encodeSyncMessage({ type: 'status', status: { number: 0, genesisHash: hash(1), latestHash: hash(1) } }),
      encodeSyncMessage({ type: 'transactions', transactions: [new Uint8Array(10)] }),
      encodeSyncMessage({ type: 'blocks', blocks: [new Uint8Array(70_000)] }),
      encodeSyncMessage({ type: 'reqBlocks', from: 1, count: 2 }),
    ];
    sync.forEach((payload, i) => {
      const kind = messageKind(encodeFrame(2, 'sync', payload));
      expect(kind).toBe(['sync.status', 'sync.transactions', 'sync.blocks', 'sync.reqBlocks'][i]);
      seen.add(kind!);
    });
    expect([...seen].sort()).toEqual([...MESSAGE_KINDS].sort());
    expect(MESSAGE_KINDS).toHaveLength(12);
  });

  it('gives undefined for other modules, unknown packet types and bytes that are not a module message', () => {
    expect(messageKind(encodeFrame(1, 'txpool', Uint8Array.of(0xc1, 0x01)))).toBeUndefined();
    expect(messageKind(Uint8Array.of(0, 1, 8))).toBeUndefined(); // header only
    expect(messageKind(Uint8Array.of(0, 1, 8, 0x85, 1, 2, 3, 4, 5))).toBeUndefined(); // a string, not a list
    expect(messageKind(Uint8Array.of(0, 1, 8, 0xc2, 0x09, 0x01))).toBeUndefined(); // PBFT type 9
    expect(messageKind(Uint8Array.of(0, 1, 99, 0xc2, 0x01, 0x01))).toBeUndefined(); // unknown module
    expect(messageKind(Uint8Array.of(0, 1, 8, 0xf9, 0x01))).toBeUndefined(); // truncated long list
    expect(messageKind(Uint8Array.of(0, 1, 11, 0xc2, 0x02, 0x00))).toBe('raft.heartbeat');
  });
});
