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
    // the words a client reads in the JSON-RPC error
    expect(e.message).toBe('AlreadyKnown (10000): the transaction is already in the pool');
  });

  it('AlreadyInChain (10001) for a committed transaction', async () => {
    const { pool, tx, putOnChain } = setup();
    const t = tx();
    putOnChain(t);
    expect((await rejection(pool.admit(t))).message).toBe('AlreadyInChain (10001): the transaction is already on chain');
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
    const pooled = await rejection(pool.admit(tx({ nonce: 5n, blockLimit: 21n })));
    expect([pooled.status, pooled.code, pooled.reason]).toEqual(['NonceCheckFail', 15, 'nonce 0x5 is used by another pooled transaction']);
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
    // an error that is not the decoder's is not turned into a rejection
    const brokenSuite = Object.assign(Object.create(suite) as typeof suite, {
      recoverSigner: () => {
        throw new RangeError('the curve library broke');
      },
    });
    const broken = new TxPool({ suite: brokenSuite, generation: 'rc2', chainId: 1n, groupId: 1n }, { height: () => 10, hasTransaction: async () => false });
    await expect(broken.admitRaw(tx().raw)).rejects.toThrow(new RangeError('the curve library broke'));
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

  it('BadRLP (2) and InvalidFormat (3) for undecodable payloads, with the decoder\'s reason', async () => {
    const { pool } = setup();
    const bad = await rejection(pool.admitRaw(Uint8Array.of(0xf8)));
    expect([bad.status, bad.code, bad.reason]).toEqual(['BadRLP', 2, 'invalid RLP: the length of the item at byte 0 runs past the end of the data']);
    const short = await rejection(pool.admitRaw(rlpEncode([Uint8Array.of(1)])));
    expect([short.status, short.code, short.reason]).toEqual(['InvalidFormat', 3, 'an rc2 transaction has 13 fields (10 + v, r, s), got 1']);
  });

  it('InvalidChainId (10002) and InvalidGroupId (10003)', async () => {
    const { pool } = setup();
    const key = suite.generateKeyPair(seeded(5));
    const other = (chainId: bigint, groupId: bigint) =>
      new TransactionBuilder({ suite, generation: 'rc2', key, random: seeded(6), chainId, groupId }).build({ blockLimit: 20n });
    expect((await rejection(pool.admit(other(2n, 1n)))).message).toBe("InvalidChainId (10002): chainId 2 is not this chain's 1");
    expect((await rejection(pool.admit(other(1n, 3n)))).message).toBe("InvalidGroupId (10003): groupId 3 is not this group's 1");
  });

  it('admits rc1 transactions, which carry no chainId or groupId, on an rc1 chain', async () => {
    const chain: PoolChainView = { height: () => 10, hasTransaction: async () => false };
    const pool = new TxPool({ suite, generation: 'rc1', chainId: 1n, groupId: 1n }, chain);
    const builder = new TransactionBuilder({ suite, generation: 'rc1', key: suite.generateKeyPair(seeded(7)), random: seeded(8) });
    const t = builder.build({ to: new Uint8Array(20), blockLimit: 20n });
    expect(t.body.chainId).toBeUndefined();
    expect((await pool.admitRaw(t.raw)).sender).toEqual(builder.address);
  });

  it('TxPoolIsFull (28) at the limit', async () => {
    const { pool, tx } = setup({ limit: 2 });
    await pool.admit(tx());
    await pool.admit(tx());
    const e = await rejection(pool.admit(tx()));
    expect([e.status, e.code, e.reason]).toEqual(['TxPoolIsFull', 28, 'the pool holds its limit of 2 transactions']);
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
    // a transaction is valid up to and including the block its blockLimit names
    expect(pool.select(5, 12).map((p) => p.seq)).toEqual([a.seq, b.seq, c.seq]);
    // seq numbers admissions in order
    expect(a.seq < b.seq && b.seq < c.seq).toBe(true);
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

  it('on restart, learns the nonces of the last blocks from the ledger and forgets them with the window', async () => {
    const { pool, tx, setHeight } = setup({ height: 5 });
    pool.rememberNonces(4, [tx({ nonce: 11n }), tx({ nonce: 12n })]);
    pool.rememberNonces(5, [tx({ nonce: 13n })]);
    expect((await rejection(pool.admit(tx({ nonce: 12n })))).reason).toBe('nonce 0xc was used in block 4');
    expect((await rejection(pool.admit(tx({ nonce: 13n })))).reason).toBe('nonce 0xd was used in block 5');
    // block 4 leaves the window when block 4 + 1001 is committed
    for (let n = 6; n <= 1005; n++) pool.onBlockCommitted(n, []);
    setHeight(1005);
    await expect(pool.admit(tx({ nonce: 12n, blockLimit: 1100n }))).resolves.toBeTruthy();
    expect((await rejection(pool.admit(tx({ nonce: 13n, blockLimit: 1100n })))).reason).toBe('nonce 0xd was used in block 5');
  });

  it('keeps a nonce that a later block used again when the earlier block leaves the window', async () => {
    const { pool, tx, setHeight } = setup({ height: 0 });
    pool.onBlockCommitted(1, [tx({ nonce: 9n })]);
    for (let n = 2; n <= 1001; n++) pool.onBlockCommitted(n, []);
    pool.onBlockCommitted(1002, [tx({ nonce: 9n, blockLimit: 1500n })]);
    setHeight(1002);
    expect((await rejection(pool.admit(tx({ nonce: 9n, blockLimit: 1600n })))).reason).toBe('nonce 0x9 was used in block 1002');
  });

  it('ignores gossip marks of transactions it does not hold: a later admission counts from when the pool first lists it', async () => {
    const { pool, tx } = setup({ height: 10 });
    const t = tx();
    pool.markGossiped([t.hash], 1000);
    const p = await pool.admit(t);
    expect(pool.staleForGossip(2000, 3000, 10)).toEqual([]);
    expect(pool.staleForGossip(4000, 3000, 10)).toEqual([]);
    expect(pool.staleForGossip(5000, 3000, 10).map((x) => x.seq)).toEqual([p.seq]);
  });

  it('remove says whether the transaction was pooled, and frees its nonce and bytes', async () => {
    const { pool, tx } = setup({ height: 10 });
    const p = await pool.admit(tx({ nonce: 3n }));
    expect(pool.remove(p.transaction.hash)).toBe(true);
    expect(pool.remove(p.transaction.hash)).toBe(false);
    expect([pool.size, pool.usedBytes, pool.has(p.transaction.hash)]).toEqual([0, 0, false]);
    await expect(pool.admit(tx({ nonce: 3n }))).resolves.toBeTruthy();
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
