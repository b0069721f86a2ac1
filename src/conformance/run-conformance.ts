import { interfaceVariantOfClientVersion, productVersionOf } from '../chain/index.js';
import type { InterfaceVariant } from '../codec/index.js';
import type { SuiteName } from '../crypto/index.js';
import { EARLIER_NO_PBFT_VIEW_CODE, JsonRpcClient, RPC_ERRORS, RpcTransportError, type FetchFunction } from '../rpc/index.js';
import { CheckFailure, CheckSkipped, type Check, type CheckResult } from './check.js';
import { ConformanceContext, type ConsensusKind } from './conformance-context.js';
import { envelopeChecks } from './envelope-checks.js';
import { errorChecks } from './error-checks.js';
import { leniencyChecks } from './leniency-checks.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { queryChecks } from './query-checks.js';
import { isObject } from './shape.js';

/** Every check, in the order they run (the lifecycle ones depend on each other). */
export const ALL_CHECKS: readonly Check[] = [...envelopeChecks, ...leniencyChecks, ...queryChecks, ...errorChecks, ...lifecycleChecks];

export interface ConformanceOptions {
  /** JSON-RPC endpoint, e.g. http://127.0.0.1:8545. */
  readonly url: string;
  /** Group to test (default 1). */
  readonly groupId?: number;
  /** Interface variant to hold the node to; default: detected from getClientVersion's Supported Version. */
  readonly variant?: InterfaceVariant;
  /** A group the node keeps without being sealer or observer, to check -40009 (skipped without). */
  readonly removedGroup?: number;
  /** Default: the global fetch (an in-process or msw-intercepted one works too). */
  readonly fetch?: FetchFunction;
  /** Per request (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** How long a sent transaction may take to get a receipt (default 30 s). */
  readonly inclusionTimeoutMs?: number;
  /** Receipt polling interval (default 250 ms). */
  readonly pollIntervalMs?: number;
  /** Told about each result as it comes (progress output). */
  readonly onResult?: (result: CheckResult) => void;
}

export interface ConformanceReport {
  readonly url: string;
  readonly groupId: number;
  readonly variant: InterfaceVariant;
  readonly variantSource: 'option' | 'detected';
  readonly consensus: ConsensusKind;
  readonly suite: SuiteName;
  /** The "<product> Version" value, when getClientVersion answered. */
  readonly nodeVersion: string | undefined;
  readonly results: readonly CheckResult[];
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** The endpoint gave no HTTP answer at all (refused, unresolvable, timed out). */
export class EndpointUnreachableError extends Error {
  override readonly name = 'EndpointUnreachableError';
}

/** The endpoint answered, but not as a FISCO BCOS node answers getClientVersion; the message says what it got. */
export class NotAFiscoNodeError extends Error {
  override readonly name = 'NotAFiscoNodeError';
  constructor(
    readonly url: string,
    /** What came back, e.g. 'HTTP 200 (text/html) with a body that is not JSON: "<!DOCTYPE html>…"'. */
    readonly got: string,
  ) {
    super(`${url} does not answer getClientVersion like a FISCO BCOS node: it got ${got}`);
  }
}

/** At most `max` characters of `text`, with an ellipsis when cut. */
const excerpt = (text: string, max = 120): string => (text.length <= max ? text : `${text.slice(0, max)}…`);

/**
 * Asks getClientVersion and returns its result when it is what a FISCO BCOS node answers: a
 * JSON-RPC 2.0 reply whose result has a "<product> Version" string. Anything else is a
 * NotAFiscoNodeError that says what came back; no answer at all is an EndpointUnreachableError.
 */
async function fiscoClientVersion(client: JsonRpcClient): Promise<Record<string, unknown>> {
  let raw;
  try {
    raw = await client.post(JSON.stringify({ jsonrpc: '2.0', method: 'getClientVersion', params: [], id: 1 }));
  } catch (e) {
    if (e instanceof RpcTransportError && e.unreachable) throw new EndpointUnreachableError(e.lasting ? `${e.message}: ${e.lasting}` : e.message);
    if (e instanceof RpcTransportError) throw new NotAFiscoNodeError(client.url, e.message.replace(`${client.url}: `, ''));
    throw e;
  }
  const http = `HTTP ${raw.status}${raw.contentType ? ` (${raw.contentType.split(';')[0]!.trim()})` : ''}`;
  if (raw.text.trim() === '') throw new NotAFiscoNodeError(client.url, `${http} with an empty body`);
  let reply: unknown;
  try {
    reply = JSON.parse(raw.text) as unknown;
  } catch {
    throw new NotAFiscoNodeError(client.url, `${http} with a body that is not JSON: ${JSON.stringify(excerpt(raw.text.trim()))}`);
  }
  if (!isObject(reply) || reply.jsonrpc !== '2.0' || !('result' in reply || 'error' in reply)) {
    throw new NotAFiscoNodeError(client.url, `JSON that is not a JSON-RPC 2.0 reply: ${excerpt(JSON.stringify(reply))}`);
  }
  if (!('result' in reply)) {
    const error = isObject(reply.error) ? reply.error : {};
    throw new NotAFiscoNodeError(client.url, `the JSON-RPC error ${String(error.code)} ${JSON.stringify(error.message)}`);
  }
  if (!isObject(reply.result) || productVersionOf(reply.result) === undefined) {
    throw new NotAFiscoNodeError(client.url, `a result without a "<product> Version" field: ${excerpt(JSON.stringify(reply.result))}`);
  }
  return reply.result;
}

async function detectConsensus(client: JsonRpcClient, groupId: number): Promise<ConsensusKind> {
  const status = await client.request('getConsensusStatus', [groupId]);
  if (Array.isArray(status.result) && isObject(status.result[0])) return 'leaderId' in status.result[0] ? 'raft' : 'pbft';
  if (isObject(status.result) && 'leaderId' in status.result) return 'raft';
  const view = await client.request('getPbftView', [groupId]);
  const code = view.error?.code;
  return code === RPC_ERRORS.noPbftView.code || code === EARLIER_NO_PBFT_VIEW_CODE ? 'raft' : 'pbft';
}

async function runCheck(ctx: ConformanceContext, c: Check): Promise<CheckResult> {
  try {
    const note = await c.run(ctx);
    return { name: c.name, area: c.area, status: 'pass', reason: note ?? '' };
  } catch (e) {
    if (e instanceof CheckSkipped) return { name: c.name, area: c.area, status: 'skip', reason: e.message };
    if (e instanceof CheckFailure) return { name: c.name, area: c.area, status: 'fail', reason: e.message };
    return { name: c.name, area: c.area, status: 'fail', reason: `${e instanceof Error ? e.name : 'error'}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * Run the conformance checks against an endpoint: the interface as docs/json-rpc.md describes
 * it. Relies on the JSON-RPC interface only, so any node can be tested. Throws
 * EndpointUnreachableError when the endpoint does not answer at all, and NotAFiscoNodeError
 * (before any check) when getClientVersion's answer is not a FISCO node's.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const groupId = options.groupId ?? 1;
  const client = new JsonRpcClient(options.url, { ...(options.fetch ? { fetch: options.fetch } : {}), timeoutMs: options.requestTimeoutMs ?? 10_000 });
  const clientVersion = await fiscoClientVersion(client);
  let consensus: ConsensusKind;
  try {
    consensus = await detectConsensus(client, groupId);
  } catch (e) {
    if (e instanceof RpcTransportError && e.unreachable) throw new EndpointUnreachableError(e.lasting ? `${e.message}: ${e.lasting}` : e.message);
    if (!(e instanceof RpcTransportError)) throw e;
    consensus = 'pbft';
  }
  const variant = options.variant ?? interfaceVariantOfClientVersion(clientVersion);
  const nodeVersion = productVersionOf(clientVersion);
  const suite: SuiteName = nodeVersion?.endsWith(' gm') ? 'sm' : 'ecdsa';
  const chainIdText = isObject(clientVersion) ? clientVersion['Chain Id'] : undefined;
  const ctx = new ConformanceContext({
    client,
    groupId,
    variant,
    consensus,
    suiteName: suite,
    chainId: typeof chainIdText === 'string' && /^[0-9]+$/.test(chainIdText) ? BigInt(chainIdText) : 1n,
    clientVersion,
    ...(options.removedGroup === undefined ? {} : { removedGroup: options.removedGroup }),
    inclusionTimeoutMs: options.inclusionTimeoutMs ?? 30_000,
    pollIntervalMs: options.pollIntervalMs ?? 250,
  });
  const results: CheckResult[] = [];
  for (const c of ALL_CHECKS) {
    const result = await runCheck(ctx, c);
    results.push(result);
    options.onResult?.(result);
  }
  const count = (status: CheckResult['status']) => results.filter((r) => r.status === status).length;
  return {
    url: options.url,
    groupId,
    variant,
    variantSource: options.variant ? 'option' : 'detected',
    consensus,
    suite,
    nodeVersion,
    results,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
  };
}
