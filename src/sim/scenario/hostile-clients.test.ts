import { describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../chain/index.js';
import { fromHex } from '../../codec/index.js';
import { getSuite } from '../../crypto/index.js';
import { TxRejectedError, type TxPool } from '../../txpool/index.js';
import type { SimChain } from '../sim-chain.js';
import { HOSTILE_BEHAVIOURS } from './hostile-behaviours.js';
import { HostileClients } from './hostile-clients.js';
import { parseScenario } from './scenario-loader.js';
import { runScenario, type ScenarioResult } from './scenario-runner.js';

const YAML = [
  'name: hostile',
  'duration: 20s',
  'chain: { nodes: 4, txPoolLimit: 40 }',
  'groups:',
  '  - { id: 1, consensus: pbft, sealers: 4 }',
  'workloads:',
  '  - { kind: helloworld, rate: 4 }',
  '  - { kind: hostile, rate: 1.5, burst: 60 }',
  'expect:',
  '  liveness: { within: 20s }',
].join('\n');

/** A run with hostile clients doing everything; `sabotage` may change a node's pool once the chain is up. */
async function run(sabotage?: (chain: SimChain) => void): Promise<{ result: ScenarioResult; clients: HostileClients }> {
  let clients: HostileClients | undefined;
  const result = await runScenario(parseScenario(YAML, 'hostile.yaml'), {
    onWorkload: (_i, driver) => {
      if (driver instanceof HostileClients) clients = driver;
    },
    ...(sabotage ? { onChain: (chain: SimChain) => chain.sim.at(1, () => sabotage(chain)) } : {}),
  });
  return { result, clients: clients! };
}

let honest: ReturnType<typeof run> | undefined;

const failed = (result: ScenarioResult) => result.expectations.filter((e) => !e.ok);

/** Replaces every node's pool admission: `take` says which refusals it answers with success instead. */
function lenientPool(chain: SimChain, take: (status: string) => boolean): void {
  for (const name of chain.names) {
    const pool = chain.group(name)!.pool as TxPool & { admit: TxPool['admit'] };
    const admit = pool.admit.bind(pool);
    pool.admit = async (tx) => {
      try {
        return await admit(tx);
      } catch (e) {
        const status = (e as { status?: string }).status;
        if (status === undefined || !take(status)) throw e;
        return { transaction: tx, sender: new Uint8Array(20), seq: 0 };
      }
    };
  }
}

/** Makes every node's pool answer TxPoolIsFull `early` transactions before its limit of 40. */
function earlyFullPool(chain: SimChain, early: number): void {
  for (const name of chain.names) {
    const pool = chain.group(name)!.pool as TxPool & { admit: TxPool['admit'] };
    const admit = pool.admit.bind(pool);
    pool.admit = async (tx) => {
      if (pool.size >= 40 - early) throw new TxRejectedError('TxPoolIsFull', `refused ${early} early`);
      return admit(tx);
    };
  }
}

describe('hostile clients', () => {
  it('run every case, and honest nodes answer each as FISCO does', async () => {
    honest ??= run();
    const { result, clients } = await honest;
    expect(failed(result)).toEqual([]);
    for (const b of HOSTILE_BEHAVIOURS) expect(clients.caseCounts.get(b) ?? 0, b).toBeGreaterThan(0);
    const names = result.expectations.map((e) => e.name).filter((n) => n.includes('(hostile)'));
    expect(names).toEqual([
      "workloads[1] (hostile): every answer is FISCO's for its case",
      'workloads[1] (hostile): a nonce race puts at most one of its two transactions on chain',
      "workloads[1] (hostile): a burst stops at the pool's limit",
    ]);
  }, 120_000);

  it('send the transactions they claim', async () => {
    honest ??= run();
    const { clients } = await honest;
    const log = clients.log;
    const by = (b: string) => log.filter((s) => s.behaviour === b);
    // multi-submit: one transaction to several nodes, and later again once committed
    const copies = new Map<string, Set<string>>();
    for (const s of by('multi-submit')) copies.set(s.hash, (copies.get(s.hash) ?? new Set()).add(s.node));
    expect([...copies.values()].some((nodes) => nodes.size >= 2)).toBe(true);
    expect(by('multi-submit').some((s) => s.expectation.startsWith('committed at block'))).toBe(true);
    // nonce race: two hashes, refusals NonceCheckFail at most
    const race = by('nonce-race');
    expect(new Set(race.map((s) => s.hash)).size).toBeGreaterThanOrEqual(2);
    expect(race.filter((s) => s.outcome !== 'accepted').every((s) => s.outcome === 'NonceCheckFail')).toBe(true);
    // replays of committed transactions are refused by nodes at or past their height
    expect(by('replay-committed').some((s) => ['AlreadyInChain', 'NonceCheckFail'].includes(s.outcome))).toBe(true);
    // block-limit edges: the outer two refused, the inner two taken
    const edges = by('block-limit-edges');
    expect(edges.filter((s) => s.outcome === 'BlockLimitCheckFail').length).toBe(edges.filter((s) => s.outcome === 'accepted').length);
    // a burst at a full pool
    expect(by('pool-burst').some((s) => s.outcome === 'TxPoolIsFull')).toBe(true);
  }, 120_000);

  it('catch a pool that takes a committed transaction again', async () => {
    const { result } = await run((chain) => lenientPool(chain, (status) => status === 'AlreadyInChain' || status === 'NonceCheckFail'));
    const names = failed(result).map((e) => e.name);
    expect(names).toContain("workloads[1] (hostile): every answer is FISCO's for its case");
    expect(failed(result).find((e) => e.name.includes('every answer'))!.detail).toMatch(/node\d at height \d+ answered accepted to 0x[0-9a-f]{64} \(committed at block \d+/);
  }, 120_000);

  it('catch a pool that takes a blockLimit at the edge it must refuse, or one past its limit', async () => {
    const edge = await run((chain) => lenientPool(chain, (status) => status === 'BlockLimitCheckFail'));
    expect(failed(edge.result).map((e) => e.name)).toContain("workloads[1] (hostile): every answer is FISCO's for its case");
    const full = await run((chain) => lenientPool(chain, (status) => status === 'TxPoolIsFull'));
    expect(failed(full.result).map((e) => e.name)).toContain("workloads[1] (hostile): a burst stops at the pool's limit");
  }, 240_000);

  it('catch a pool that answers TxPoolIsFull while it still has room', async () => {
    const { result } = await run((chain) => earlyFullPool(chain, 10));
    const names = failed(result).map((e) => e.name);
    expect(names).toContain("workloads[1] (hostile): every answer is FISCO's for its case");
    expect(names).toContain("workloads[1] (hostile): a burst stops at the pool's limit");
    expect(failed(result).find((e) => e.name.includes('every answer'))!.detail).toMatch(/pool-burst: node\d at height \d+ answered TxPoolIsFull to 0x[0-9a-f]{64}/);
    expect(failed(result).find((e) => e.name.includes('a burst'))!.detail).toMatch(/^node\d took \d+ of a burst of \d+ with room for \d+ \(limit 40\); FISCO takes exactly what fits$/);
  }, 120_000);

  it('nonce races send two different transactions with one nonce, at most one of them on chain', async () => {
    honest ??= run();
    const { clients, result } = await honest;
    const options = { suite: getSuite(result.scenario.chain.suite), generation: 'rc2' as const };
    const race = clients.log.filter((s) => s.behaviour === 'nonce-race');
    const byNonce = new Map<bigint, Set<string>>();
    for (const s of race) {
      const nonce = decodeTransaction(fromHex(`0x${s.raw}`), options).body.nonce;
      byNonce.set(nonce, (byNonce.get(nonce) ?? new Set()).add(s.hash));
    }
    expect(byNonce.size).toBeGreaterThan(0);
    for (const hashes of byNonce.values()) expect(hashes.size).toBe(2);
    expect(result.expectations.find((e) => e.name.includes('nonce race'))!.detail).toMatch(/^\d+ races, \d+ with a winner on chain$/);
  }, 120_000);
});
