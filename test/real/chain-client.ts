import { randomBytes } from 'node:crypto';
import { contractBytecode } from '../../fixtures/contracts/artifacts.js';
import { TransactionBuilder } from '../../src/chain/index.js';
import { fromHex, toHex } from '../../src/codec/index.js';
import { encodeFunctionCall } from '../../src/abi/index.js';
import { getSuite, keccak256, type SuiteName } from '../../src/crypto/index.js';
import { blockNumber, rpc, waitFor } from './real-chain.js';

interface Receipt {
  readonly status: string;
  readonly blockNumber: string;
  readonly contractAddress?: string;
}

/** A client with its own key that signs HelloWorld transactions for a real chain. */
export class ChainClient {
  private readonly builder: TransactionBuilder;
  private readonly suite;

  constructor(suiteName: SuiteName = 'ecdsa', generation: 'rc1' | 'rc2' = 'rc2', chainId = 1n) {
    this.suite = getSuite(suiteName);
    const key = this.suite.generateKeyPair((n) => new Uint8Array(randomBytes(n)));
    this.builder = new TransactionBuilder({ suite: this.suite, generation, key, random: (n) => new Uint8Array(randomBytes(n)), chainId, groupId: 1n });
  }

  async signedDeploy(url: string): Promise<string> {
    const limit = BigInt((await blockNumber(url)) + 500);
    return toHex(this.builder.build({ data: contractBytecode('HelloWorld'), blockLimit: limit }).raw);
  }

  signedSet(to: string, text: string, blockLimit: number): string {
    // the fixture's bytecode comes from the stock solc, whose selectors are keccak-256 on every suite
    const data = encodeFunctionCall('set(string)', [text], keccak256);
    return toHex(this.builder.build({ to: fromHex(to), data, blockLimit: BigInt(blockLimit) }).raw);
  }

  /** Sends a payload and returns its hash. */
  send(url: string, raw: string): Promise<string> {
    return rpc<string>(url, 'sendRawTransaction', [1, raw]);
  }

  receipt(url: string, hash: string, timeoutMs = 30_000): Promise<Receipt> {
    return waitFor(`the receipt of ${hash.slice(0, 10)} from ${url}`, () => rpc<Receipt | null>(url, 'getTransactionReceipt', [1, hash]).then((r) => r ?? undefined), timeoutMs);
  }

  /** Deploys HelloWorld through `url` and returns its address once committed. */
  async deploy(url: string): Promise<string> {
    const hash = await this.send(url, await this.signedDeploy(url));
    const receipt = await this.receipt(url, hash);
    if (receipt.status !== '0x0' || !receipt.contractAddress) throw new Error(`deploy failed: ${JSON.stringify(receipt)}`);
    return receipt.contractAddress;
  }
}
