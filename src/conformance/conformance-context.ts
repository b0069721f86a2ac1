import { randomBytes } from 'node:crypto';
import { contractBytecode } from '../fixture-contracts.js';
import { TransactionBuilder, type Transaction, type TxGeneration } from '../chain/index.js';
import { bigintToBytes, rlpEncode, toHex, type InterfaceVariant } from '../codec/index.js';
import { encodeFunctionCall } from '../abi/index.js';
import { getSuite, keccak256, type CryptoSuite, type SuiteName } from '../crypto/index.js';
import { RpcCallError, type JsonRpcClient, type RpcErrorObject, type RpcResponse } from '../rpc/index.js';
import { fail } from './check.js';
import { show } from './shape.js';

export type ConsensusKind = 'pbft' | 'raft';

/** What the lifecycle checks learn and hand on to each other. */
export interface LifecycleState {
  deploy?: Transaction;
  /** Height before the deploy was sent. */
  heightBefore?: number;
  txSumBefore?: bigint;
  receipt?: Record<string, unknown>;
  /** Where HelloWorld lives, once known. */
  contract?: string;
  set?: Transaction;
}

export interface ContextOptions {
  readonly client: JsonRpcClient;
  readonly groupId: number;
  readonly variant: InterfaceVariant;
  readonly consensus: ConsensusKind;
  readonly suiteName: SuiteName;
  readonly chainId: bigint;
  readonly clientVersion: unknown;
  readonly removedGroup?: number;
  readonly inclusionTimeoutMs: number;
  readonly pollIntervalMs: number;
}

/** Everything a check needs: the client, what was detected about the node, and shared lifecycle state. */
export class ConformanceContext {
  readonly client: JsonRpcClient;
  readonly groupId: number;
  readonly variant: InterfaceVariant;
  readonly consensus: ConsensusKind;
  readonly suite: CryptoSuite;
  readonly clientVersion: unknown;
  readonly removedGroup: number | undefined;
  readonly state: LifecycleState = {};
  private builderValue: TransactionBuilder | undefined;

  constructor(private readonly options: ContextOptions) {
    this.client = options.client;
    this.groupId = options.groupId;
    this.variant = options.variant;
    this.consensus = options.consensus;
    this.suite = getSuite(options.suiteName);
    this.clientVersion = options.clientVersion;
    this.removedGroup = options.removedGroup;
  }

  /** rc1 payloads for the earlier variant, rc2 (with chainId and groupId) for the later. */
  get generation(): TxGeneration {
    return this.variant === 'earlier' ? 'rc1' : 'rc2';
  }

  /** Signs with a key generated for this run. */
  get builder(): TransactionBuilder {
    this.builderValue ??= new TransactionBuilder({
      suite: this.suite,
      generation: this.generation,
      key: this.suite.generateKeyPair((n) => new Uint8Array(randomBytes(n))),
      random: (n) => new Uint8Array(randomBytes(n)),
      chainId: this.options.chainId,
      groupId: BigInt(this.groupId),
    });
    return this.builderValue;
  }

  get sender(): string {
    return toHex(this.builder.address);
  }

  helloWorldCode(): Uint8Array {
    return contractBytecode('HelloWorld');
  }

  /** ABI call data; the artifact was compiled with keccak selectors, which is what its code compares against. */
  abi(signature: string, args: unknown[] = []): Uint8Array {
    return encodeFunctionCall(signature, args, keccak256);
  }

  /** Where a first deployment from a fresh account lands: Hash(rlp([sender, 0])), last 20 bytes. */
  firstContractAddress(): string {
    return toHex(this.suite.hash(rlpEncode([this.builder.address, bigintToBytes(0n)])).subarray(12));
  }

  async rpc(method: string, params: unknown[]): Promise<RpcResponse> {
    return this.client.request(method, params);
  }

  /** A result; an error reply fails the check with its code and message. */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    try {
      return await this.client.call<T>(method, params);
    } catch (e) {
      if (e instanceof RpcCallError) fail(`${method} answered error ${e.code}: ${e.message.slice(method.length + 2)}`);
      throw e;
    }
  }

  /** The error object of a call that must fail, with `code` when given. */
  async expectError(method: string, params: unknown[], code?: number): Promise<RpcErrorObject> {
    const reply = await this.client.request(method, params);
    if (!reply.error) fail(`${method}(${show(params).slice(1, -1)}) succeeded with ${show(reply.result)}; expected error ${code ?? ''}`.trim());
    if (typeof reply.error.code !== 'number' || typeof reply.error.message !== 'string') {
      fail(`the error object needs an integer code and a string message, got ${show(reply.error)}`);
    }
    if (code !== undefined && reply.error.code !== code) fail(`expected error ${code}, got ${reply.error.code} "${reply.error.message}"`);
    return reply.error;
  }

  async height(): Promise<number> {
    const hex = await this.call<string>('getBlockNumber', [this.groupId]);
    const n = Number.parseInt(String(hex).slice(2), 16);
    if (!Number.isSafeInteger(n)) fail(`getBlockNumber gave ${show(hex)}, not a hex quantity`);
    return n;
  }

  async send(tx: Transaction): Promise<string> {
    return this.call<string>('sendRawTransaction', [this.groupId, toHex(tx.raw).slice(2)]);
  }

  async blockLimit(): Promise<bigint> {
    return BigInt((await this.height()) + 500);
  }

  /** Poll for a receipt until it appears or the inclusion timeout passes. */
  async waitForReceipt(hash: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + this.options.inclusionTimeoutMs;
    for (;;) {
      const receipt = await this.call<Record<string, unknown> | null>('getTransactionReceipt', [this.groupId, hash]);
      if (receipt !== null && receipt !== undefined) return receipt;
      if (Date.now() >= deadline) fail(`no receipt for ${hash} within ${this.options.inclusionTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.options.pollIntervalMs));
    }
  }
}
