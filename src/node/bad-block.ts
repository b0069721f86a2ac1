import { encodeSignedTransaction, recoverSender, TransactionBuilder, decodeTransaction, type Transaction } from '../chain/index.js';
import { toHex } from '../codec/index.js';
import type { CryptoSuite } from '../crypto/index.js';
import type { BadBlockVariant } from './byzantine-kinds.js';
import type { Group } from './group.js';

/** bad-block variants whose bad contents are transactions (the root variants act on votes, the header ones on the Prepare). */
type ContentVariant = Extract<BadBlockVariant, 'bad-signature' | 'reused-nonce' | 'on-chain' | 'expired-block-limit' | 'wrong-chain-id' | 'wrong-group-id'>;
const CONTENT_VARIANTS: readonly string[] = ['bad-signature', 'reused-nonce', 'on-chain', 'expired-block-limit', 'wrong-chain-id', 'wrong-group-id'] satisfies ContentVariant[];

export function isContentVariant(variant: string | undefined): variant is ContentVariant {
  return variant !== undefined && CONTENT_VARIANTS.includes(variant);
}

/** How far back a byzantine leader looks for a committed transaction to reuse. */
const LOOK_BACK = 64;

/**
 * The transactions of a byzantine leader's bad proposal at `height`: the pooled ones it would
 * have sealed, then one or two made for the variant, signed with the node's own key (validly,
 * but for bad-signature). `detail` says what is wrong, for the trace. Seeded from the node's
 * own "byzantine" random stream.
 */
export async function badBlockTransactions(
  group: Group,
  variant: ContentVariant,
  height: number,
  pooled: readonly Uint8Array[],
): Promise<{ transactions: Uint8Array[]; detail: string }> {
  const rng = group.env.random.stream('byzantine');
  const generation = group.version.txGeneration;
  const chainId = group.options.chainId;
  const groupId = BigInt(group.groupId);
  const builder = (ids: { chainId?: bigint; groupId?: bigint } = {}) =>
    new TransactionBuilder({ suite: group.suite, generation, key: group.options.key, random: (n) => rng.bytes(n), chainId: ids.chainId ?? chainId, groupId: ids.groupId ?? groupId });
  const blockLimit = BigInt(height + 100);
  // a call to the node's own address: no code there, so it executes (and would commit) as a no-op
  const to = group.suite.address(group.options.key.publicKey);
  const fresh = (ids?: { chainId?: bigint; groupId?: bigint }, nonce?: bigint) => builder(ids).build({ to, blockLimit, ...(nonce !== undefined ? { nonce } : {}) });
  const out = (bad: Uint8Array[], detail: string) => ({ transactions: [...pooled, ...bad], detail });
  switch (variant) {
    case 'bad-signature': {
      const tx = fresh();
      return out([corruptSignature(group.suite, tx)], `transaction ${toHex(tx.hash).slice(0, 12)}… with its signature's r altered`);
    }
    case 'reused-nonce': {
      const onChain = await lastCommittedTransaction(group);
      if (onChain) return out([fresh(undefined, onChain.body.nonce).raw], `nonce 0x${onChain.body.nonce.toString(16)} already used on chain`);
      const first = fresh();
      return out([first.raw, fresh(undefined, first.body.nonce).raw], `two transactions with nonce 0x${first.body.nonce.toString(16)}`);
    }
    case 'on-chain': {
      const onChain = await lastCommittedTransaction(group);
      if (onChain) return out([onChain.raw], `transaction ${toHex(onChain.hash).slice(0, 12)}… already committed`);
      // nothing committed yet: a transaction twice in the block is the nearest thing
      const tx = fresh();
      return out([tx.raw, tx.raw], `nothing on chain yet: transaction ${toHex(tx.hash).slice(0, 12)}… twice`);
    }
    case 'expired-block-limit': {
      const tx = builder().build({ to, blockLimit: BigInt(height - 1) });
      return out([tx.raw], `blockLimit ${height - 1} for block ${height}`);
    }
    case 'wrong-chain-id':
    case 'wrong-group-id': {
      if (generation !== 'rc2') return out([corruptSignature(group.suite, fresh())], `${variant} needs rc2 transactions (supported_version ≥ 2.0.0-rc2); a bad signature instead`);
      const tx = fresh(variant === 'wrong-chain-id' ? { chainId: chainId + 1n } : { groupId: groupId + 1n });
      return out([tx.raw], variant === 'wrong-chain-id' ? `chainId ${chainId + 1n}` : `groupId ${groupId + 1n}`);
    }
  }
}

/** The most recent committed transaction within LOOK_BACK blocks, raw bytes from the ledger. */
async function lastCommittedTransaction(group: Group): Promise<Transaction | undefined> {
  for (let n = group.chain.height; n >= 1 && n > group.chain.height - LOOK_BACK; n--) {
    const txs = (await group.chain.ledger.blockByNumber(n))?.block.transactions;
    if (txs && txs.length > 0) return txs.at(-1);
  }
  return undefined;
}

/**
 * The transaction's raw bytes with its signature's r changed (xor with a small number) so that it
 * no longer verifies: ECDSA recovery fails (r off the curve) or, for SM2, verification against the
 * carried public key fails.
 */
export function corruptSignature(suite: CryptoSuite, tx: Transaction): Uint8Array {
  const options = { suite, generation: tx.generation };
  for (let k = 1n; k < 256n; k++) {
    const raw = encodeSignedTransaction(tx.body, tx.generation, { ...tx.signature, r: tx.signature.r ^ k });
    try {
      recoverSender(decodeTransaction(raw, options), suite);
    } catch {
      return raw;
    }
  }
  throw new Error('bad-block: could not corrupt a transaction signature');
}
