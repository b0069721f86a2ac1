// The replay's block-signature checks on their own: one valid signature per sealer, and the
// quorum each consensus needs (PBFT n − f with f = ⌊(n−1)/3⌋, Raft a majority), at the sealer
// counts where a formula off by a little gives another answer (3 and 6 sealers for PBFT, 4 for
// Raft). A recording from a real chain rarely has those counts, so each is built here.
import { describe, expect, it } from 'vitest';
import type { GroupGenesis } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { EcdsaSuite } from '../crypto/index.js';
import { checkSignatures, type BlockContext } from './block-checks.js';
import type { BlockCrypto } from './crypto-ahead.js';
import { Stop, Tally } from './divergence.js';
import type { RecordedHeader } from './recorded-json.js';

const suite = new EcdsaSuite();
const keys = Array.from({ length: 6 }, (_, i) => suite.keyPairFromPrivateKey(new Uint8Array(32).fill(i + 1)));
const ids = keys.map((k) => toHexNoPrefix(k.publicKey));
const hash = suite.hash(new TextEncoder().encode('block 7'));
const noCrypto = { signatures: new Map() } as unknown as BlockCrypto;

/** Runs the check of block 7 signed by `signers` (sealer indexes) with `n` sealers in force; the divergence or 'pass'. */
function check(consensusType: GroupGenesis['consensusType'], n: number, signers: readonly number[]): string {
  const tally = new Tally();
  const ctx = { tally, realSuite: suite, genesis: { consensusType } } as unknown as BlockContext;
  const header = { signatureList: signers.map((i) => ({ index: i, signature: suite.signatureToBytes(suite.sign(hash, keys[i]!)) })) } as unknown as RecordedHeader;
  try {
    checkSignatures(header, hash, ids.slice(0, n), 7, ctx, noCrypto);
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const d = e.divergence;
    return `${d.field}: ${d.recorded} / ${d.replayed}`;
  }
  expect(tally.passed['signature quorum']).toBe(1);
  return 'pass';
}

describe('replay: block signatures and their quorum', () => {
  it('PBFT needs n − ⌊(n−1)/3⌋: 3 of 3, 4 of 4, 5 of 6', () => {
    expect(check('pbft', 3, [0, 1, 2])).toBe('pass');
    expect(check('pbft', 3, [0, 2])).toBe('signatureList: 2 valid signatures / 3 needed: 3 sealers in force (n − f, f = ⌊(n−1)/3⌋)');
    expect(check('pbft', 4, [1, 2, 3])).toBe('pass');
    expect(check('pbft', 4, [1, 3])).toMatch(/^signatureList: 2 valid signatures \/ 3 needed/);
    expect(check('pbft', 6, [0, 1, 2, 3, 5])).toBe('pass');
    expect(check('pbft', 6, [0, 1, 2, 5])).toMatch(/^signatureList: 4 valid signatures \/ 5 needed: 6 sealers/);
  });

  it('Raft needs a majority: 3 of 4, 2 of 3', () => {
    expect(check('raft', 4, [0, 1, 3])).toBe('pass');
    expect(check('raft', 4, [0, 3])).toBe('signatureList: 2 valid signatures / 3 needed: 4 sealers in force (a majority)');
    expect(check('raft', 3, [1, 2])).toBe('pass');
    expect(check('raft', 3, [2])).toMatch(/^signatureList: 1 valid signature \/ 2 needed/);
  });

  it('a sealer\'s signature twice counts once, and is itself refused, even where the copies would make up the quorum', () => {
    expect(check('pbft', 4, [0, 1, 1])).toBe('signatureList[2]: a second signature of sealer 1 / one signature per sealer');
    expect(check('pbft', 4, [0, 1, 2, 2])).toBe('signatureList[3]: a second signature of sealer 2 / one signature per sealer');
  });

  it('a signature by a sealer not in force is refused at its place in the list', () => {
    expect(check('pbft', 4, [0, 1, 4])).toMatch(/^signatureList\[2\]: 0x[0-9a-f]+ by sealer 4 \/ does not verify: no sealer with index 4/);
  });
});
