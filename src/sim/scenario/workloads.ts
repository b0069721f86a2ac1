import { contractBytecode } from '../../fixture-contracts.js';
import { fromHex, toHex } from '../../codec/index.js';
import { decodeAbi, encodeAbi, encodeFunctionCall } from '../../abi/index.js';
import { keccak256 } from '../../crypto/index.js';
import type { Rng } from '../../runtime/index.js';
import type { NodeRpc } from '../node-rpc.js';
import type { SimChain } from '../sim-chain.js';
import { durationMs } from './scenario-loader.js';
import type { Workload } from './scenario-schema.js';

/** The workloads that make their own transactions at a rate (all but replay and hostile). */
export type GeneratedWorkload = Exclude<Workload, { kind: 'replay' | 'hostile' }>;
import type { TxClient } from './tx-client.js';
import type { TxKind } from './tx-tracker.js';

export const helloWorldCode = (): Uint8Array => contractBytecode('HelloWorld');
const tokenInitCode = (): Uint8Array => contractBytecode('Token');

export const TOKEN_SUPPLY = 1_000_000_000_000n;
const TOKEN_GRANT = 1_000_000n;

/** An application-level check a workload can make at the end of a run (e.g. token supply kept). */
export interface WorkloadCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface WorkloadContext {
  readonly chain: SimChain;
  readonly client: TxClient;
  readonly rpc: NodeRpc;
  /** Virtual ms at which every workload stops submitting (the liveness phase begins). */
  readonly endMs: number;
  /** Says whether a node is up and honest, to read from at the end. */
  readonly readable: (group: number) => string | undefined;
  /** Every live honest member of the group, to read from at the end. */
  readonly readers: (group: number) => string[];
}

/**
 * Schedules a workload in the simulation: its set-up at its start time, then a tick at each exact
 * multiple of 1/rate seconds after it (so the rate does not drift) until its stop time or the end
 * of the submitting phase, whichever comes first.
 */
export function scheduleWorkload(
  ctx: WorkloadContext,
  spec: { readonly start?: string | number; readonly stop?: string | number; readonly rate: number },
  index: number,
  setUp: () => Promise<void>,
  tick: () => Promise<void>,
): void {
  const { sim } = ctx.chain;
  const start = spec.start === undefined ? 0 : durationMs(spec.start);
  const stop = Math.min(spec.stop === undefined ? Infinity : durationMs(spec.stop), ctx.endMs);
  sim.at(start, setUp, `workload ${index} setup`);
  const interval = 1000 / spec.rate;
  let k = 1;
  const next = async () => {
    await tick();
    const at = start + ++k * interval;
    if (at < stop) sim.at(at, next, `workload ${index}`);
  };
  if (start + interval < stop) sim.at(start + interval, next, `workload ${index}`);
}

type Kind = 'helloworld' | 'deploy' | 'token';

/**
 * One workload of the scenario: sets up what it needs (a HelloWorld or Token contract, funded
 * accounts), then sends transactions at its rate from its start to its stop time, each through
 * the JSON-RPC of a live node of the group.
 */
export class WorkloadDriver {
  private hello: Uint8Array | undefined;
  private token: Uint8Array | undefined;
  private funded = 0;
  private readonly accounts: string[];
  private readonly addresses: Uint8Array[];
  private readonly rng: Rng;
  private sequence = 0;
  /** Ticks that found no contract ready or no node up. */
  skipped = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    private readonly spec: GeneratedWorkload,
    private readonly index: number,
  ) {
    this.rng = ctx.chain.sim.random(`workload/${index}`);
    const accounts = spec.kind === 'token' ? spec.accounts : 10;
    this.accounts = Array.from({ length: accounts }, (_, i) => `w${index}/user${i}`);
    this.addresses = this.accounts.map((a) => ctx.client.account(a, spec.group).address);
  }

  private get group(): number {
    return this.spec.group;
  }

  private get targets(): readonly string[] | undefined {
    return this.spec.targets === undefined ? undefined : typeof this.spec.targets === 'string' ? [this.spec.targets] : this.spec.targets;
  }

  private needs(kind: Kind): boolean {
    if (this.spec.kind === 'mix') return this.spec.weights[kind] > 0;
    return this.spec.kind === kind;
  }

  start(): void {
    scheduleWorkload(this.ctx, this.spec, this.index, () => this.setUp(), () => this.tick());
  }

  private async setUp(): Promise<void> {
    if (this.needs('helloworld') && !this.hello) await this.deploy('setup', (address) => (this.hello = address));
    if (this.needs('token') && !this.token) {
      const data = new Uint8Array([...tokenInitCode(), ...encodeAbi('uint256', [TOKEN_SUPPLY])]);
      await this.deploy('setup', (address) => {
        this.token = address;
        void this.fund();
      }, data);
    }
  }

  /** Deploys (as the workload's owner account), retrying every second while no node takes it. */
  private async deploy(kind: TxKind, onDeployed: (address: Uint8Array) => void, data = helloWorldCode()): Promise<void> {
    const record = await this.ctx.client.send(`w${this.index}/owner`, this.group, kind, { to: null, data }, this.targets);
    if (!record) {
      if (this.ctx.chain.sim.now + 1000 < this.ctx.endMs) this.ctx.chain.sim.after(1000, () => this.deploy(kind, onDeployed, data), `workload ${this.index} setup`);
      return;
    }
    this.ctx.client.tracker.whenCommitted(record.hash, (r) => {
      if (r.status === 0 && r.contractAddress) onDeployed(fromHex(r.contractAddress));
    });
  }

  private async fund(): Promise<void> {
    const token = this.token!;
    for (const address of this.addresses) {
      const data = encodeFunctionCall('transfer(address,uint256)', [toHex(address), TOKEN_GRANT], this.selectorHash);
      const record = await this.ctx.client.send(`w${this.index}/owner`, this.group, 'setup', { to: token, data }, this.targets);
      if (record) this.ctx.client.tracker.whenCommitted(record.hash, () => this.funded++);
    }
  }

  /** Our fixture contracts are compiled by solc, which dispatches on keccak selectors on any chain. */
  private readonly selectorHash = keccak256;

  private choose(): Kind | undefined {
    if (this.spec.kind !== 'mix') return this.spec.kind;
    const ready: Array<[Kind, number]> = (['helloworld', 'deploy', 'token'] as const).map((k) => [k, this.spec.kind === 'mix' ? this.spec.weights[k] : 0]);
    const total = ready.reduce((n, [, w]) => n + w, 0);
    let draw = this.rng.next() * total;
    for (const [kind, weight] of ready) {
      if (draw < weight) return kind;
      draw -= weight;
    }
    return undefined;
  }

  private async tick(): Promise<void> {
    const kind = this.choose();
    const n = this.sequence++;
    const client = this.ctx.client;
    let record;
    if (kind === 'helloworld') {
      if (!this.hello) return void this.skipped++;
      const data = encodeFunctionCall('set(string)', [`hello #${n} from workload ${this.index}`], this.selectorHash);
      record = await client.send(this.accounts[n % this.accounts.length]!, this.group, 'helloworld', { to: this.hello, data }, this.targets);
    } else if (kind === 'deploy') {
      record = await client.send(this.accounts[n % this.accounts.length]!, this.group, 'deploy', { to: null, data: helloWorldCode() }, this.targets);
    } else if (kind === 'token') {
      if (!this.token || this.funded < this.accounts.length) return void this.skipped++;
      const from = this.rng.int(this.accounts.length);
      const to = (from + 1 + this.rng.int(this.accounts.length - 1)) % this.accounts.length;
      const amount = BigInt(1 + this.rng.int(1000));
      const data = encodeFunctionCall('transfer(address,uint256)', [toHex(this.addresses[to]!), amount], this.selectorHash);
      record = await client.send(this.accounts[from]!, this.group, 'token', { to: this.token, data }, this.targets);
    }
    if (!record) this.skipped++;
  }

  /** End-of-run checks through `call`: the token's balances still add up to its supply. */
  async checks(): Promise<WorkloadCheck[]> {
    if (!this.needs('token')) return [];
    const name = `workloads[${this.index}] (${this.spec.kind}): token balances add up to the supply`;
    if (!this.token) return [{ name, ok: false, detail: 'the token contract was never deployed' }];
    const node = this.ctx.readable(this.group);
    if (!node) return [{ name, ok: false, detail: 'no honest node of the group is up to read from' }];
    const owner = this.ctx.client.account(`w${this.index}/owner`, this.group).address;
    let sum = 0n;
    for (const address of [owner, ...this.addresses]) {
      const data = encodeFunctionCall('balanceOf(address)', [toHex(address)], this.selectorHash);
      const reply = await this.ctx.rpc.call(node, 'call', [this.group, { from: toHex(owner), to: toHex(this.token), data: toHex(data) }]);
      const output = (reply?.result as { output?: string } | undefined)?.output;
      let balance: bigint;
      try {
        balance = decodeAbi('uint256', fromHex(output ?? '0x'))[0] as bigint;
      } catch (e) {
        return [{ name, ok: false, detail: `call balanceOf(${toHex(address)}) on ${node} answered ${reply?.error ? `error ${reply.error.message}` : `output ${output}`}: ${(e as Error).message}` }];
      }
      sum += balance;
    }
    return [{ name, ok: sum === TOKEN_SUPPLY, detail: `sum of ${this.addresses.length + 1} balances on ${node}: ${sum}, supply ${TOKEN_SUPPLY}` }];
  }
}
