import { describe, expect, it } from 'vitest';
import { encodeSignedTransaction, TransactionBuilder, type Transaction } from '../chain/index.js';
import { rlpEncode } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { TxPool, type PoolChainView } from './tx-pool.js';
import { TxRejectedError } from './tx-rejection.js';

const suite = getSuite('ecdsa');
const seeded = (seed: number) => {
  let n = seed;
  return (length: number) => Uint8Array.from({ length }, () => (n = (n * 48271) % 2147483647) & 0xff);
};

function setup(options: { limit?: number; memoryLimit?: number; height?: number } = {}) {
  const onChain = new Set<string>();
  let height = options.height ?? 10;
  let lookups = 0;
  const chain: PoolChainView = {
    height: () => height,
    hasTransaction: async (h) => {
      lookups++;
      return onChain.has(Buffer.from(h).toString('hex'));
    },
  };
  const pool = new TxPool({ suite, generation: 'rc2', chainId: 1n, groupId: 1n, limit: options.limit, memoryLimit: options.memoryLimit }, chain);
  const builder = new TransactionBuilder({ suite, generation: 'rc2', key: suite.generateKeyPair(seeded(1)), random: seeded(2) });
  const tx = (over: Partial<{ blockLimit: bigint; nonce: bigint }> = {}) => builder.build({ to: new Uint8Array(20), blockLimit: 20n, ...over });
  return {
    pool,
    tx,
    builder,
    setHeight: (h: number) => (height = h),
    /** As a commit does: the ledger holds it and the pool remembers its nonce. */
    putOnChain: (t: Transaction) => {
      onChain.add(Buffer.from(t.hash).toString('hex'));
      pool.onBlockCommitted(height, [t]);
    },
    /** Only the ledger holds it (a block older than the nonce window). */
    putOnChainLongAgo: (t: Transaction) => onChain.add(Buffer.from(t.hash).toString('hex')),
    lookups: () => lookups,
  };
}

async function rejection(p: Promise<unknown>): Promise<TxRejectedError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TxRejectedError);
    return e as TxRejectedError;
  }
  throw new Error('expected a rejection');
}

describe('TxPool admission', () => {
  it('admits a valid transaction and records its verified sender', async () => {
    const { pool, tx, builder } = setup();
    const pooled = await pool.admit(tx());
    expect(pool.size).toBe(1);
    expect(pooled.sender).toEqual(builder.address);
  });

  it('AlreadyKnown (10000) for a transaction already pooled', async () => {
    const { pool, tx } = setup();
    const t = tx();
    await pool.admit(t);
    const e = await rejection(pool.admitRaw(t.raw));
    expect([e.status, e.code]).toEqual(['AlreadyKnown', 10000]);
  });

  it('AlreadyInChain (10001) for a committed transaction', async () => {
    const { pool, tx, putOnChain } = setup();
    const t = tx();
    putOnChain(t);
    expect((await rejection(pool.admit(t))).status).toBe('AlreadyInChain');
  });

  it('asks the ledger only when the nonce was used in the window or the blockLimit has passed', async () => {
    const { pool, tx, putOnChainLongAgo, setHeight, lookups } = setup();
    await pool.admit(tx());
    expect(lookups()).toBe(0);
    const old = tx({ blockLimit: 15n });
    putOnChainLongAgo(old);
    setHeight(1100);
    expect((await rejection(pool.admit(old))).status).toBe('AlreadyInChain');
    expect(lookups()).toBe(1);
    expect((await rejection(pool.admit(tx({ blockLimit: 15n })))).status).toBe('BlockLimitCheckFail');
    expect(lookups()).toBe(2);
  });

  it('NonceCheckFail (15) for a nonce used in a recent block or by a pooled transaction', async () => {
    const { pool, tx } = setup();
    const committed = tx({ nonce: 77n });
    pool.onBlockCommitted(10, [committed]);
    const e = await rejection(pool.admit(tx({ nonce: 77n })));
    expect([e.status, e.code, e.reason]).toEqual(['NonceCheckFail', 15, 'nonce 0x4d was used in block 10']);
    await pool.admit(tx({ nonce: 5n }));
    expect((await rejection(pool.admit(tx({ nonce: 5n, blockLimit: 21n })))).reason).toContain('another pooled transaction');
  });

  it("remembers block nonces for blocks [current - 1000, current], as FISCO's nonce cache does, then forgets them", async () => {
    const { pool, tx, setHeight } = setup({ height: 0 });
    pool.onBlockCommitted(1, [tx({ nonce: 9n })]);
    for (let n = 2; n <= 1001; n++) pool.onBlockCommitted(n, []);
    setHeight(1001);
    expect((await rejection(pool.admit(tx({ nonce: 9n, blockLimit: 1500n })))).reason).toBe('nonce 0x9 was used in block 1');
    pool.onBlockCommitted(1002, []);
    setHeight(1002);
    await expect(pool.admit(tx({ nonce: 9n, blockLimit: 1500n }))).resolves.toBeTruthy();
  });

  it('BlockLimitCheckFail (16) outside (current, current + 1000], with FISCO-like wording', async () => {
    const { pool, tx } = setup({ height: 10 });
    for (const blockLimit of [5n, 10n, 1011n]) {
      const e = await rejection(pool.admit(tx({ blockLimit })));
      expect(e.message).toBe(`BlockLimitCheckFail (16): blockLimit ${blockLimit} not in (10, 1010]`);
    }
    await expect(pool.admit(tx({ blockLimit: 1010n }))).resolves.toBeTruthy();
  });

  it('InvalidSignature (5) for a signature that recovers no key', async () => {
    const { pool, tx } = setup();
    const good = tx();
    const { s: sv, v } = good.signature as { s: bigint; v: number };
    // the smallest r that is not the x coordinate of a curve point: recovery must fail
    let r = 1n;
    while (suite.recoverSigner(good.signingHash, { kind: 'ecdsa', r, s: sv, v })) r++;
    const e = await rejection(pool.admitRaw(encodeSignedTransaction(good.body, 'rc2', { kind: 'ecdsa', r, s: sv, v })));
    expect([e.status, e.code, e.reason]).toEqual(['InvalidSignature', 5, 'field signature: does not recover to a public key']);
  });

  it('a flipped v is checked as FISCO checks it: the key is recovered from (r, s, v), so the transaction is another sender\'s or none', async () => {
    const { pool, tx, builder } = setup();
    for (let i = 0; i < 8; i++) {
      const good = tx();
      const sig = good.signature as { kind: 'ecdsa'; r: bigint; s: bigint; v: number };
      const flipped = encodeSignedTransaction(good.body, 'rc2', { ...sig, v: sig.v ^ 1 });
      const other = suite.recoverSigner(good.signingHash, { ...sig, v: sig.v ^ 1 });
      if (!other) {
        expect((await rejection(pool.admitRaw(flipped))).status).toBe('InvalidSignature');
        continue;
      }
      const pooled = await pool.admitRaw(flipped);
      expect(pooled.sender).toEqual(suite.address(other));
      expect(pooled.sender).not.toEqual(builder.address);
    }
  });

  it('BadRLP (2) and InvalidFormat (3) for undecodable payloads', async () => {
    const { pool } = setup();
    expect((await rejection(pool.admitRaw(Uint8Array.of(0xf8)))).status).toBe('BadRLP');
    expect((await rejection(pool.admitRaw(rlpEncode([Uint8Array.of(1)])))).status).toBe('InvalidFormat');
  });

  it('InvalidChainId (10002) and InvalidGroupId (10003)', async () => {
    const { pool } = setup();
    const key = suite.generateKeyPair(seeded(5));
    const other = (chainId: bigint, groupId: bigint) =>
      new TransactionBuilder({ suite, generation: 'rc2', key, random: seeded(6), chainId, groupId }).build({ blockLimit: 20n });
    expect((await rejection(pool.admit(other(2n, 1n)))).status).toBe('InvalidChainId');
    expect((await rejection(pool.admit(other(1n, 3n)))).status).toBe('InvalidGroupId');
  });

  it('TxPoolIsFull (28) at the limit', async () => {
    const { pool, tx } = setup({ limit: 2 });
    await pool.admit(tx());
    await pool.admit(tx());
    const e = await rejection(pool.admit(tx()));
    expect([e.status, e.code]).toEqual(['TxPoolIsFull', 28]);
  });

  it('OverGroupMemoryLimit (10006) when the pooled bytes would pass memory_limit, checked before anything else', async () => {
    const { pool, tx } = setup({ limit: 1 });
    expect(pool.memoryLimit).toBe(512 * 1024 * 1024);
    const size = tx().raw.length; // every transaction of this builder has the same size
    const small = setup({ memoryLimit: 2 * size });
    const a = await small.pool.admit(small.tx());
    await small.pool.admit(small.tx());
    expect(small.pool.usedBytes).toBe(2 * size);
    const third = small.tx();
    const e = await rejection(small.pool.admit(third));
    expect([e.status, e.code]).toEqual(['OverGroupMemoryLimit', 10006]);
    expect(e.reason).toBe(`the pool holds ${2 * size} bytes of transactions; ${size} more would pass its memory limit of ${2 * size}`);
    // a known transaction still gets the memory reason first, as in FISCO's order
    expect((await rejection(small.pool.admit(a.transaction))).status).toBe('OverGroupMemoryLimit');
    // a commit frees the bytes of its transactions
    small.pool.onBlockCommitted(11, [a.transaction]);
    expect(small.pool.usedBytes).toBe(size);
    await small.pool.admit(third);
    expect(small.pool.size).toBe(2);
    // a full pool at a generous memory limit answers TxPoolIsFull instead
    await pool.admit(tx());
    expect((await rejection(pool.admit(tx()))).status).toBe('TxPoolIsFull');
  });
});

describe('TxPool selection and commits', () => {
  it('selects oldest first up to the limit, skipping expired, and drops committed and expired', async () => {
    const { pool, tx } = setup({ height: 10 });
    const a = await pool.admit(tx({ blockLimit: 12n }));
    const b = await pool.admit(tx({ blockLimit: 30n }));
    const c = await pool.admit(tx({ blockLimit: 30n }));
    expect(pool.select(2, 11).map((p) => p.seq)).toEqual([a.seq, b.seq]);
    expect(pool.select(5, 13).map((p) => p.seq)).toEqual([b.seq, c.seq]);
    pool.onBlockCommitted(12, [b.transaction]);
    expect(pool.pending().map((p) => p.seq)).toEqual([c.seq]); // b committed, a expired (blockLimit 12 <= 12)
  });

  it('lists transactions for another gossip round once they stayed pending long enough since they last went out', async () => {
    const { pool, tx } = setup({ height: 10 });
    const a = await pool.admit(tx());
    const b = await pool.admit(tx());
    pool.markGossiped([a.transaction.hash], 1000);
    expect(pool.staleForGossip(2000, 3000, 10)).toEqual([]); // b is first seen now
    expect(pool.staleForGossip(4000, 3000, 10).map((p) => p.seq)).toEqual([a.seq]);
    expect(pool.staleForGossip(5000, 3000, 10).map((p) => p.seq)).toEqual([a.seq, b.seq]);
    expect(pool.staleForGossip(5000, 3000, 1).map((p) => p.seq)).toEqual([a.seq]); // oldest first, capped
    pool.markGossiped([a.transaction.hash, b.transaction.hash], 5000);
    expect(pool.staleForGossip(7000, 3000, 10)).toEqual([]);
    pool.remove(a.transaction.hash);
    expect(pool.staleForGossip(8000, 3000, 10).map((p) => p.seq)).toEqual([b.seq]);
  });

  it('drops a pooled transaction once another one with its nonce is committed, and never selects it', async () => {
    const { pool, tx } = setup({ height: 10 });
    const mine = await pool.admit(tx({ nonce: 42n }));
    const other = tx({ nonce: 42n, blockLimit: 25n }); // same nonce, admitted by another node's pool
    expect(other.hash).not.toEqual(mine.transaction.hash);
    const keep = await pool.admit(tx({ nonce: 43n }));
    pool.onBlockCommitted(11, [other]);
    expect(pool.pending().map((p) => p.seq)).toEqual([keep.seq]);
    expect(pool.select(10, 12).map((p) => p.seq)).toEqual([keep.seq]);
  });
});
