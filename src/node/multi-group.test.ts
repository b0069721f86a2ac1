import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TransactionBuilder, type GroupGenesis } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { Simulation } from '../runtime/index.js';
import { Node } from './node.js';
import { seededKeys } from './seeded-keys.test-helper.js';

describe('a node in two groups (simulated)', () => {
  it('keeps a ledger, pool, consensus and sync per group; each group commits on its own', async () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse('2.11.0');
    const { random, keys, ids } = seededKeys('two-groups', 4, suite);
    const g1: GroupGenesis = { groupId: 1, consensusType: 'pbft', sealers: ids, timestamp: Date.UTC(2026, 0, 1) };
    const g2: GroupGenesis = { groupId: 2, consensusType: 'pbft', sealers: ids.slice(0, 3), observers: [ids[3]!], timestamp: Date.UTC(2026, 0, 1), txCountLimit: 2 };
    const sim = new Simulation<Node>({ seed: 'two-groups', network: { latency: { kind: 'uniform', minMs: 2, maxMs: 10 } } });
    ids.forEach((id, i) => sim.addNode(`node${i}`, (env) => Node.start({ env, key: keys[i]!, suite, version, groups: i < 4 ? [g1, g2] : [g1] }), { nodeId: id }));
    const client = (groupId: number) => new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(random), random, groupId: BigInt(groupId) });
    const c1 = client(1);
    const c2 = client(2);
    const node = (i: number) => sim.node(`node${i}`).handle!;
    for (let k = 0; k < 10; k++) {
      sim.at(100 + k * 200, async () => {
        await node(k % 4).group(1)!.submit(c1.build({ to: new Uint8Array(20).fill(1), blockLimit: 400n }).raw);
        await node(k % 3).group(2)!.submit(c2.build({ to: new Uint8Array(20).fill(2), blockLimit: 400n }).raw);
      });
    }
    await sim.run({ until: 15_000 });
    expect(node(0).groupIds()).toEqual([1, 2]);
    const totals = (g: number) => [0, 1, 2, 3].map((i) => node(i).group(g)!.totals().txSum);
    expect(totals(1)).toEqual([10n, 10n, 10n, 10n]);
    expect(totals(2)).toEqual([10n, 10n, 10n, 10n]);
    // group 2's tx_count_limit of 2 shapes its blocks, not group 1's
    const g2Head = node(3).group(2)!.blockNumber();
    expect(g2Head).toBeGreaterThanOrEqual(5);
    for (let n = 1; n <= g2Head; n++) expect((await node(3).group(2)!.blockByNumber(n))!.block.transactions.length).toBeLessThanOrEqual(2);
    expect(node(3).group(2)!.membership()).toBe('observer');
    expect(node(3).group(1)!.membership()).toBe('sealer');
    // separate ledgers: different genesis hashes, no cross-group transactions
    expect(node(0).group(1)!.syncStatus().genesisHash).not.toBe(node(0).group(2)!.syncStatus().genesisHash);
    const g1tx = (await node(0).group(1)!.blockByNumber(1))!.block.transactions[0]!;
    expect(await node(0).group(2)!.transaction(g1tx.hash)).toBeUndefined();
    expect(sim.node('node0').storage.names.sort()).toEqual(['group1', 'group2']);
  });

  it('refuses a transaction for another group with InvalidGroupId, and reports each rejection as FISCO names it', async () => {
    const suite = getSuite('ecdsa');
    const version = ProtocolVersion.parse('2.11.0');
    const key = suite.generateKeyPair(() => new Uint8Array(32).fill(7));
    const genesis: GroupGenesis = { groupId: 1, consensusType: 'pbft', sealers: [toHex(key.publicKey).slice(2)], timestamp: Date.UTC(2026, 0, 1) };
    const sim = new Simulation<Node>({ seed: 'reject' });
    sim.addNode('solo', (env) => Node.start({ env, key, suite, version, groups: [genesis] }), { nodeId: genesis.sealers[0]! });
    await sim.run({ until: 10 });
    const group = sim.node('solo').handle!.group(1)!;
    const random = (n: number) => new Uint8Array(n).fill(3);
    const other = new TransactionBuilder({ suite, generation: 'rc2', key, random, groupId: 2n }).build({ blockLimit: 10n });
    expect(await group.submit(other.raw)).toEqual({ accepted: false, rejection: { status: 10003, name: 'InvalidGroupId', reason: 'groupId 2 is not this group\'s 1' } });
    const late = new TransactionBuilder({ suite, generation: 'rc2', key, random }).build({ blockLimit: 0n });
    expect(await group.submit(late.raw)).toEqual({ accepted: false, rejection: { status: 16, name: 'BlockLimitCheckFail', reason: 'blockLimit 0 not in (0, 1000]' } });
    expect(await group.submit(Uint8Array.of(0xf8, 0x01))).toMatchObject({ accepted: false, rejection: { status: 2, name: 'BadRLP' } });
    const ok = new TransactionBuilder({ suite, generation: 'rc2', key, random: (n) => new Uint8Array(n).fill(4) }).build({ to: new Uint8Array(20), blockLimit: 10n });
    expect(await group.submit(ok.raw)).toEqual({ accepted: true, hash: ok.hash });
    expect(await group.submit(ok.raw)).toMatchObject({ accepted: false, rejection: { name: 'AlreadyKnown' } });
    await sim.run({ until: 3_000 });
    expect(group.blockNumber()).toBe(1); // a single sealer commits alone
    expect((await group.transaction(ok.hash))?.receipt.status).toBe(26); // the zero address has no code: CallAddressError
  });
});
