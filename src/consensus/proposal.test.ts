import { describe, expect, it } from 'vitest';
import { expectRefusal } from '../codec/refusal.test-helper.js';
import { rlpDecode, rlpEncode, type RlpValue } from '../codec/index.js';
import { encodeProposal, MessageDecodeError, proposalFromRlp, proposalItems, sameProposal, type Proposal } from './proposal.js';

const sealers = [new Uint8Array(64).fill(1), new Uint8Array(64).fill(2)];
const proposal: Proposal = {
  number: 300,
  parentHash: new Uint8Array(32).fill(0xaa),
  timestamp: 1_700_000_000_123,
  sealer: 1,
  sealerList: sealers,
  transactions: [Uint8Array.of(0xf8, 1), Uint8Array.of(0xf8, 2, 3)],
};

describe('proposal encoding', () => {
  it('is the RLP list [number, parentHash, timestamp, sealer, sealerList, transactions] with minimal integers', () => {
    expect(proposalItems(proposal)).toEqual([
      Uint8Array.of(0x01, 0x2c),
      proposal.parentHash,
      Uint8Array.of(0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x7b),
      Uint8Array.of(1),
      sealers,
      proposal.transactions,
    ]);
    expect(proposalItems({ ...proposal, number: 0, sealer: 0 })[0]).toEqual(new Uint8Array());
    expect(encodeProposal(proposal)).toEqual(rlpEncode(proposalItems(proposal) as never));
  });

  it('round-trips, and a decoded proposal keeps the bytes it came in as its encoding', () => {
    const bytes = encodeProposal(proposal);
    const decoded = proposalFromRlp(rlpDecode(bytes));
    expect(decoded).toEqual(proposal);
    expect(sameProposal(decoded, proposal)).toBe(true);
    expect(sameProposal({ ...proposal, timestamp: proposal.timestamp + 1 }, proposal)).toBe(false);
    expect(sameProposal({ ...proposal, transactions: proposal.transactions.slice(1) }, proposal)).toBe(false);
    // the bytes received are taken as its encoding (not encoded again): whatever they are
    const received = Uint8Array.of(1, 2, 3);
    expect(encodeProposal(proposalFromRlp(rlpDecode(bytes), received))).toBe(received);
    // an encoding is computed once per proposal object
    expect(encodeProposal(proposal)).toBe(encodeProposal(proposal));
  });

  const items = (): RlpValue[] => proposalItems(proposal);
  const broken = (i: number, v: RlpValue): RlpValue[] => items().map((item, k) => (k === i ? v : item));
  it.each<[string, RlpValue, string]>([
    ['not a list', Uint8Array.of(1), 'a proposal is a list of 6 items'],
    ['5 items', items().slice(0, 5), 'a proposal is a list of 6 items'],
    ['7 items', [...items(), new Uint8Array()], 'a proposal is a list of 6 items'],
    ['a list for its number', broken(0, []), 'proposal number: expected bytes'],
    ['an 8-byte number', broken(0, new Uint8Array(8).fill(1)), 'proposal number'],
    ['a number with a leading zero', broken(0, Uint8Array.of(0, 1)), 'proposal number'],
    ['a list for its parent hash', broken(1, []), 'proposal parentHash: expected bytes'],
    ['a 31-byte parent hash', broken(1, new Uint8Array(31)), 'proposal parentHash: expected 32 bytes'],
    ['an 8-byte timestamp', broken(2, new Uint8Array(8).fill(1)), 'proposal timestamp'],
    ['a 5-byte sealer index', broken(3, new Uint8Array(5).fill(1)), 'proposal sealer'],
    ['bytes for its sealer list', broken(4, Uint8Array.of(1)), 'proposal sealerList: expected a list'],
    ['a list inside its sealer list', broken(4, [sealers[0]!, []]), 'proposal sealerList[1]: expected bytes'],
    ['bytes for its transactions', broken(5, Uint8Array.of(1)), 'proposal transactions: expected a list'],
    ['a list inside its transactions', broken(5, [[]]), 'proposal transactions[0]: expected bytes'],
  ])('refuses %s, saying which field', (_what, value, message) => {
    expectRefusal(() => proposalFromRlp(value), MessageDecodeError, message);
  });

  it('names the integer problem in its own words', () => {
    expect(() => proposalFromRlp(broken(0, new Uint8Array(8).fill(1)))).toThrow(/^proposal number.*integer wider than 7 bytes/);
    expect(() => proposalFromRlp(broken(3, Uint8Array.of(0, 1)))).toThrow(/^proposal sealer.*leading zero/);
    expect(proposalFromRlp(broken(0, new Uint8Array(7).fill(1))).number).toBe(Number(0x01010101010101n));
    expect(proposalFromRlp(broken(3, Uint8Array.of(1, 2, 3, 4))).sealer).toBe(0x01020304);
  });
});
