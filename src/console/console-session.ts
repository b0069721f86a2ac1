// One console's connection and state: the channel client to the first reachable peer, the
// chain's suite and transaction format (from the node's version), the account, the group in
// use and the contracts folder. The crypto suite and the account's key pair are loaded for the
// first transaction only: a console that reads (queries, calls of view functions) starts
// without the curve libraries.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ProtocolVersion, TransactionBuilder, txStatusName, type ReturnCodeEncoding } from '../chain/index.js';
import { ChannelClient, ChannelClientError } from '../channel/index.js';
import { fromHex, toHex } from '../codec/index.js';
import type { CryptoSuite, KeyPair, SuiteName } from '../crypto/index.js';
import { locateAccount, readAccount, type AccountFile } from './accounts.js';
import type { ConsoleConfig } from './console-config.js';
import { ConsoleError } from './console-error.js';
import { ContractStore } from './contracts.js';

export interface Receipt {
  readonly transactionHash: string;
  readonly status: string;
  readonly output?: string;
  readonly contractAddress?: string;
  readonly blockNumber?: string;
  readonly logs?: ReadonlyArray<{ address: string; topics: string[]; data: string }>;
}

/** FISCO's words for a receipt status: its exception name spelled out, success as FISCO's console says it. */
export function statusDescription(status: string): string {
  const code = Number(status);
  if (code === 0) return 'transaction executed successfully';
  const name = txStatusName(code);
  return name ? name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : `unknown status ${status}`;
}

function readPem(file: string, what: string, config: ConsoleConfig): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConsoleError(`${path.relative(process.cwd(), file) || file}: cannot read ${what} (${why}); set [cryptoMaterial] in ${config.file}`);
  }
}

export class ConsoleSession {
  group: number;
  private readonly builders = new Map<number, TransactionBuilder>();

  private signing: Promise<{ suite: CryptoSuite; key: KeyPair }> | undefined;

  private constructor(
    readonly config: ConsoleConfig,
    readonly client: ChannelClient,
    readonly suiteName: SuiteName,
    readonly generation: 'rc1' | 'rc2',
    /** How the node's system contracts write return codes (its supported_version's; ProtocolVersion.returnCodes). */
    readonly returnCodes: ReturnCodeEncoding,
    readonly chainId: bigint,
    readonly account: AccountFile,
    readonly contracts: ContractStore,
    group: number,
  ) {
    this.group = group;
  }

  /** The suite and the account's key pair, loaded once (the first transaction). */
  private signer(): Promise<{ suite: CryptoSuite; key: KeyPair }> {
    this.signing ??= (async () => {
      const { getSuite } = await import('../crypto/index.js');
      const suite = getSuite(this.suiteName);
      const { key, address } = await readAccount(this.account.file, suite);
      if (address !== this.account.address) throw new ConsoleError(`account key ${this.account.file}: its key is of ${address}, not ${this.account.address}`);
      return { suite, key };
    })();
    return this.signing;
  }

  /** Connects to the first peer that answers, in the config's order. */
  static async open(config: ConsoleConfig, group: number): Promise<ConsoleSession> {
    const tls = {
      ca: readPem(config.certs.ca, 'the CA certificate', config),
      cert: readPem(config.certs.cert, 'the SDK certificate', config),
      key: readPem(config.certs.key, 'the SDK key', config),
    };
    const failures: string[] = [];
    let client: ChannelClient | undefined;
    for (const peer of config.peers) {
      try {
        client = await ChannelClient.connect({ host: peer.host, port: peer.port, tls, clientType: 'twinchain-console' });
        break;
      } catch (error) {
        if (!(error instanceof ChannelClientError)) throw error;
        // name the file the failure points at
        const show = (f: string) => path.relative(process.cwd(), f) || f;
        const file = /client certificate/.test(error.message) ? `certificate ${show(config.certs.cert)}` : /CA certificate/.test(error.message) ? `CA ${show(config.certs.ca)}` : `CA ${show(config.certs.ca)}, certificate ${show(config.certs.cert)}`;
        failures.push(error.kind === 'tls' ? `${error.message} [${file}]` : error.message);
      }
    }
    if (!client) throw new ConsoleError(failures.length === 1 ? failures[0]! : `no peer of ${config.file} answered:\n  ${failures.join('\n  ')}`);
    try {
      const version = await client.call<Record<string, string>>('getClientVersion', []);
      const product = version['FISCO-BCOS Version'] ?? '';
      const sm = config.useSMCrypto ?? /\bgm\b/.test(product);
      const suiteName: SuiteName = sm ? 'sm' : 'ecdsa';
      const later = version['Supported Version'] !== undefined;
      const chainId = BigInt(version['Chain Id'] ?? '1');
      const groups = await client.call<number[]>('getGroupList', []);
      if (!groups.includes(group)) throw new ConsoleError(`the node at ${client.address} is not in group ${group} (its groups: ${groups.join(', ') || 'none'})`);
      const account = await locateAccount(config.keyStoreDir, suiteName);
      return new ConsoleSession(config, client, suiteName, later ? 'rc2' : 'rc1', returnCodesOf(version['Supported Version']), chainId, account, new ContractStore(config.dir), group);
    } catch (error) {
      client.close();
      throw error;
    }
  }

  /** A JSON-RPC call over the channel; node errors become console errors. */
  async rpc<T = unknown>(method: string, params: unknown[]): Promise<T> {
    try {
      return await this.client.call<T>(method, params);
    } catch (error) {
      if (error instanceof ChannelClientError) throw new ConsoleError(error.message);
      throw error;
    }
  }

  async blockNumber(): Promise<number> {
    return Number(await this.rpc<string>('getBlockNumber', [this.group]));
  }

  private async builder(): Promise<TransactionBuilder> {
    let builder = this.builders.get(this.group);
    if (!builder) {
      const { suite, key } = await this.signer();
      builder = new TransactionBuilder({
        suite,
        generation: this.generation,
        key,
        random: (n) => new Uint8Array(randomBytes(n)),
        chainId: this.chainId,
        groupId: BigInt(this.group),
      });
      this.builders.set(this.group, builder);
    }
    return builder;
  }

  /** Signs and sends a transaction; returns its hash and the receipt the node pushes once the block commits. */
  async transact(to: string | null, data: Uint8Array): Promise<{ hash: string; receipt: Promise<Receipt> }> {
    const blockLimit = BigInt((await this.blockNumber()) + 500);
    const tx = (await this.builder()).build({ to: to === null ? null : fromHex(to), data, blockLimit });
    try {
      const sent = await this.client.sendRawTransaction(this.group, toHex(tx.raw));
      const receipt = sent.receipt.then(
        (r) => r as unknown as Receipt,
        (error: Error) => {
          throw new ConsoleError(error.message);
        },
      );
      receipt.catch(() => {});
      return { hash: sent.hash, receipt };
    } catch (error) {
      if (error instanceof ChannelClientError) throw new ConsoleError(error.message);
      throw error;
    }
  }

  /** A read-only call as this account. */
  async call(to: string, data: string): Promise<{ status: string; output: string }> {
    return this.rpc('call', [this.group, { from: this.account.address, to, value: '0x0', data }]);
  }

  close(): void {
    this.client.close();
  }
}

/** A node's return-code encoding from its getClientVersion's "Supported Version" (none: 2.0.0-rc1). */
function returnCodesOf(supported: string | undefined): ReturnCodeEncoding {
  if (supported === undefined) return 'rc1';
  try {
    return ProtocolVersion.parse(supported).returnCodes;
  } catch {
    return 'int256';
  }
}
