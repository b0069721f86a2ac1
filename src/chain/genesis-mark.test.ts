import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { genesisMark, parseGenesisMark, GenesisError, type GroupGenesis } from './genesis.js';
import { ProtocolVersion } from './protocol-version.js';

const id = (c: string) => c.repeat(128);
const VERSIONS = ['2.0.0-rc1', '2.0.0-rc2', '2.0.0-rc3', '2.0.0', '2.3.0', '2.4.0', '2.5.0', '2.6.0', '2.8.0', '2.9.0', '2.11.0'];

describe('parseGenesisMark (the inverse of genesisMark)', () => {
  for (const v of VERSIONS) {
    for (const consensusType of ['pbft', 'raft', 'rpbft'] as const) {
      it(`${v} ${consensusType}: parse(genesisMark(g)) gives g's fields back, and its mark again`, () => {
        const version = ProtocolVersion.parse(v);
        const genesis: GroupGenesis = {
          groupId: 7,
          consensusType,
          // unsorted: before 2.9.0 the mark keeps the file's order
          sealers: [id('c'), id('a'), id('b')],
          timestamp: 0,
          stateType: consensusType === 'raft' ? 'mpt' : 'storage',
          txCountLimit: 500,
          txGasLimit: 123_456_789n,
          consensusTimeout: 9,
          ...(consensusType === 'rpbft' ? { epochSealerNum: 2, epochBlockNum: 50 } : {}),
        };
        const mark = genesisMark(genesis, version);
        const parsed = parseGenesisMark(mark, version);
        expect(parsed.groupId).toBe(7);
        expect(parsed.consensusType).toBe(consensusType);
        expect(parsed.sealers).toEqual(version.atLeast('2.9.0') ? [id('a'), id('b'), id('c')] : [id('c'), id('a'), id('b')]);
        expect(parsed.stateType).toBe(genesis.stateType);
        expect(parsed.txCountLimit).toBe(500);
        expect(parsed.txGasLimit).toBe(123_456_789n);
        expect(parsed.consensusTimeout).toBe(version.atLeast('2.6.0') ? 9 : undefined);
        expect(parsed.epochSealerNum).toBe(consensusType === 'rpbft' ? 2 : undefined);
        expect(parsed.epochBlockNum).toBe(consensusType === 'rpbft' ? 50 : undefined);
        expect(genesisMark({ ...parsed, timestamp: 0 }, version)).toBe(mark);
      });
    }
  }

  it('observers (a Twinchain addition) come back too', () => {
    const version = ProtocolVersion.parse('2.11.0');
    const mark = genesisMark({ groupId: 1, consensusType: 'pbft', sealers: [id('a')], observers: [id('e'), id('d')], timestamp: 0 }, version);
    expect(parseGenesisMark(mark, version).observers).toEqual([id('d'), id('e')]);
  });

  it('the real 2019 mark (2.0/2.1 layout) parses to its four sealers in file order', () => {
    const data = JSON.parse(readFileSync(new URL('../../fixtures/realdata/genesis-block0-pythonsdkdoc.json', import.meta.url), 'utf8')) as { genesis_mark_reconstructed: string };
    const parsed = parseGenesisMark(data.genesis_mark_reconstructed, ProtocolVersion.parse('2.1.0'));
    expect(parsed.sealers.map((s) => s.slice(0, 8))).toEqual(['b8783cfe', '12ce3fc7', '6bd07f2f', '3ad90ae5']);
    expect(parsed).toMatchObject({ groupId: 1, consensusType: 'pbft', stateType: 'storage', txCountLimit: 1000, txGasLimit: 300_000_000n });
  });

  it('names the field that is wrong', () => {
    const v211 = ProtocolVersion.parse('2.11.0');
    const good = genesisMark({ groupId: 1, consensusType: 'pbft', sealers: [id('a')], timestamp: 0 }, v211);
    expect(() => parseGenesisMark(good, ProtocolVersion.parse('2.0.0-rc1'))).toThrow(/writes "rocksdb" after the consensus type, got "storage"/);
    expect(() => parseGenesisMark(good, ProtocolVersion.parse('2.3.0'))).toThrow(/unexpected "300000000-3"/);
    expect(() => parseGenesisMark(good.replace('-pbft-', '-paxos-'), v211)).toThrow('consensus type must be pbft, raft or rpbft, got "paxos"');
    expect(() => parseGenesisMark(good.replace(/-3$/, ''), v211)).toThrow(/consensusTimeout \(2.6.0 and later\) is missing/);
    expect(() => parseGenesisMark(`${good}-x`, v211)).toThrow(/unexpected "x"/);
    expect(() => parseGenesisMark(good.replace('aaaa', 'AAAA'), v211)).toThrow(/is not a node id/);
    expect(() => parseGenesisMark('x', v211)).toThrow(GenesisError);
  });
});
