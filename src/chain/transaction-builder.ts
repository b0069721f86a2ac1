import { bytesToBigint } from '../codec/index.js';
import type { CryptoSuite, KeyPair, RandomSource } from '../crypto/index.js';
import type { TxGeneration } from './protocol-version.js';
import { signTransaction, type Transaction, type TxBody } from './transaction.js';

/** What SDKs send by default: both gasPrice and gas at FISCO's default tx_gas_limit. */
export const DEFAULT_GAS = 300_000_000n;
export const DEFAULT_GAS_PRICE = 300_000_000n;

export interface TxRequest {
  /** Receiver; omit or null to deploy `data` as init code. */
  readonly to?: Uint8Array | null;
  readonly data?: Uint8Array;
  /** Must be in (current height, current height + 1000]; SDKs use current + 500. */
  readonly blockLimit: bigint;
  /** Replay-protection nonce; a random 248-bit number when omitted. */
  readonly nonce?: bigint;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly value?: bigint;
  readonly extraData?: Uint8Array;
}

export interface TransactionBuilderOptions {
  readonly suite: CryptoSuite;
  readonly generation: TxGeneration;
  readonly key: KeyPair;
  /** Where random nonces come from: a seeded stream in simulation, crypto randomness for real clients. */
  readonly random: RandomSource;
  readonly chainId?: bigint;
  readonly groupId?: bigint;
}

/** Makes signed payloads for one account: what the console, workloads and tests use. */
export class TransactionBuilder {
  readonly address: Uint8Array;

  constructor(private readonly options: TransactionBuilderOptions) {
    this.address = options.suite.address(options.key.publicKey);
  }

  build(request: TxRequest): Transaction {
    const { suite, generation, key, random } = this.options;
    const body: TxBody = {
      nonce: request.nonce ?? bytesToBigint(random(31)),
      gasPrice: request.gasPrice ?? DEFAULT_GAS_PRICE,
      gas: request.gas ?? DEFAULT_GAS,
      blockLimit: request.blockLimit,
      to: request.to ?? null,
      value: request.value ?? 0n,
      data: request.data ?? new Uint8Array(0),
      ...(generation === 'rc2'
        ? {
            chainId: this.options.chainId ?? 1n,
            groupId: this.options.groupId ?? 1n,
            extraData: request.extraData ?? new Uint8Array(0),
          }
        : {}),
    };
    return signTransaction(body, { suite, generation }, key);
  }
}
