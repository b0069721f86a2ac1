// Clients that behave on the wire as FISCO's SDKs do, written from reading their channel code
// (fisco notes §7). Each keeps the SDK's own quirks: how it opens TLS, the seqs it makes, and how
// it cuts the byte stream into frames, so a node that only works for a lenient client fails here.
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ChannelType, encodeFrame, type ChannelFrame } from '../../src/channel/channel-frame.js';
import { startChannelServer, type ChannelServer } from '../../src/channel/channel-server.js';
import { RawClient, makeCerts, type ChannelCerts } from '../../src/channel/channel-test-harness.test-helper.js';
import { rpcHarness } from '../../src/rpc/rpc-harness.test-helper.js';

export type Harness = Awaited<ReturnType<typeof rpcHarness>>;

/** TLS material an SDK is configured with: sdk.key, sdk.crt and ca.crt. */
export interface SdkAuth {
  key: string;
  cert: string;
  ca: string;
}

export interface SdkNode {
  h: Harness;
  server: ChannelServer;
  certs: ChannelCerts;
  /** The SDK's key and certificate (issued by the node's agency) with the chain CA. */
  auth: SdkAuth;
  logs: string[];
  stop(): Promise<void>;
}

/** A dev node behind a channel server with build_chain -R certificates. */
export async function startSdkNode(): Promise<SdkNode> {
  const dir = mkdtempSync(path.join(tmpdir(), 'twinchain-sdk-compat-'));
  const certs = makeCerts(dir);
  const h = await rpcHarness();
  const logs: string[] = [];
  const server = await startChannelServer({
    host: '127.0.0.1',
    port: 0,
    tls: { key: certs.node.key, cert: certs.node.cert, ca: certs.ca },
    service: h.service,
    supportedVersion: h.node.clientVersion().supportedVersion,
    log: (m) => logs.push(m),
  });
  return {
    h,
    server,
    certs,
    auth: { key: certs.sdk.key, cert: certs.sdk.cert, ca: certs.ca },
    logs,
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One node for a test file: started before its tests, stopped after them. The returned function
 * gives the node (inside tests and hooks).
 */
export function useSdkNode(): () => SdkNode {
  let env: SdkNode | undefined;
  beforeAll(async () => {
    env = await startSdkNode();
  }, 30_000);
  afterAll(async () => {
    await env?.stop();
  });
  return () => {
    if (!env) throw new Error('the SDK node is not started (use it inside tests and hooks)');
    return env;
  };
}

/** Seals what is pending and tells the channel server, as the node does on every commit. */
export async function commitBlock(env: { h: Harness; server: ChannelServer }): Promise<number> {
  const block = await env.h.node.seal();
  if (!block) throw new Error('nothing to seal');
  const number = env.h.group.blockNumber();
  env.server.blockCommitted(env.h.group.groupId, number);
  return number;
}

/** Puts one transaction in a block (submitted straight to the node) and announces the block. */
export async function newBlock(env: { h: Harness; server: ChannelServer }): Promise<number> {
  const reply = await env.h.send(env.h.deployTx());
  if (reply.error !== undefined) throw new Error(`deploy refused: ${JSON.stringify(reply.error)}`);
  return commitBlock(env);
}

/** Polls `probe` every 5 ms until it gives a value; throws after `timeoutMs`. */
export async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Polls until `condition` holds; throws after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  await until(() => (condition() ? true : undefined), what, timeoutMs);
}

function header(type: number, seq: string, data: Buffer): Buffer {
  return encodeFrame({ type, seq, data });
}

// ---------------------------------------------------------------------------------------------
// Node.js SDK: packages/api/common/network/channelPromise.js (+ constant.js, web3j/web3jService.js)
// ---------------------------------------------------------------------------------------------

/** What the Node SDK's parseResponse made of one buffer it took for a frame. */
export interface NodeSdkMessage {
  type: number;
  seq: string;
  errorCode: number;
  /** 0x12 / 0x1000 / 0x15 / 0x1002: the parsed JSON; 0x1001: [groupID, blockHeight]. */
  body: unknown;
}

/**
 * The Node SDK's socket: `tls.createSecureContext({key, cert, ca, ecdhCurve: 'secp256k1'})`, a
 * `net.Socket` connected first, `tls.connect({rejectUnauthorized: false, secureContext, socket})`
 * (no SNI, no version bounds: on Node ≥ 17 the user passes --tls-max-v1.2, which is `maxVersion`
 * here). Its 'data' handler assumes a 'data' event never holds the end of one frame and the
 * start of the next: it tracks `tlsSocket.bytesRead` against the expected length and hands the
 * whole accumulated buffer to parseResponse, which JSON-parses everything after byte 42.
 */
export class NodeSdkClient {
  readonly messages: NodeSdkMessage[] = [];
  /** What would have been thrown inside the SDK's 'data' handler (it has no try/catch). */
  readonly failures: string[] = [];
  private cache: { expectedLength: number | undefined; buffer: Buffer } | undefined;
  private lastBytesRead = 0;

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (data: Buffer) => this.onData(data));
    socket.on('error', () => {});
  }

  static connect(port: number, auth: SdkAuth, maxVersion: tls.SecureVersion | undefined): Promise<NodeSdkClient> {
    const secureContext = tls.createSecureContext({ ...auth, ecdhCurve: 'secp256k1', ...(maxVersion ? { maxVersion } : {}) });
    const raw = new net.Socket();
    raw.connect(port, '127.0.0.1');
    const socket = tls.connect({ rejectUnauthorized: false, secureContext, socket: raw });
    return new Promise((resolve, reject) => {
      socket.once('secureConnect', () => resolve(new NodeSdkClient(socket)));
      socket.once('error', reject);
    });
  }

  private onData(response: Buffer): void {
    const bytesRead = this.socket.bytesRead;
    if (!this.cache) {
      let expectedLength: number | undefined;
      if (bytesRead - this.lastBytesRead >= 4) expectedLength = response.readUIntBE(0, 4);
      if (!expectedLength || bytesRead < this.lastBytesRead + expectedLength) {
        this.cache = { expectedLength, buffer: response };
      } else {
        this.lastBytesRead += expectedLength;
        this.parse(response);
      }
      return;
    }
    const cache = this.cache;
    cache.buffer = Buffer.concat([cache.buffer, response]);
    if (!cache.expectedLength && bytesRead - this.lastBytesRead >= 4) cache.expectedLength = cache.buffer.readUIntBE(0, 4);
    if (cache.expectedLength && bytesRead - this.lastBytesRead >= cache.expectedLength) {
      this.lastBytesRead += cache.expectedLength;
      this.cache = undefined;
      this.parse(cache.buffer);
    }
  }

  private parse(response: Buffer): void {
    const seq = response.subarray(6, 38).toString();
    const type = response.subarray(4, 6).readUInt16BE();
    const errorCode = response.subarray(38, 42).readUInt32BE();
    try {
      if (errorCode !== 0) throw new Error(`channel error code ${errorCode}`);
      let body: unknown;
      switch (type) {
        case ChannelType.TX_RECEIPT_NOTIFY:
        case ChannelType.RPC:
        case ChannelType.EVENT_LOG_PUSH:
          body = JSON.parse(response.subarray(42).toString());
          break;
        case ChannelType.BLOCK_NOTIFY: {
          const data = response.subarray(42);
          const topicLength = data.subarray(0, 1).readUInt8();
          body = data.subarray(topicLength).toString('ascii').split(',').map((s) => parseInt(s));
          break;
        }
        case ChannelType.EVENT_LOG_REGISTER: {
          const data = response.subarray(42);
          const topicLength = data.subarray(0, 1).readUInt8();
          body = JSON.parse(data.subarray(topicLength).toString());
          break;
        }
        default:
          throw new Error(`unknown type message received, type=${type}`);
      }
      this.messages.push({ type, seq, errorCode, body });
    } catch (error) {
      this.failures.push(`${(error as Error).message} (type 0x${type.toString(16)}, ${response.length} bytes)`);
    }
  }

  /** packWithHeader: a uuid v4 without dashes as the seq, the JSON text as ASCII. */
  send(type: number, payload: unknown, topic?: string): string {
    const seq = randomUUID().replace(/-/g, '');
    let data = Buffer.from(JSON.stringify(payload), 'ascii');
    if (topic !== undefined) data = Buffer.concat([Buffer.of(topic.length + 1), Buffer.from(topic, 'ascii'), data]);
    this.socket.write(header(type === 0x11 ? ChannelType.RPC : type, seq, data));
    return seq;
  }

  /**
   * channelPromise for a read-only query (type QUERY = 0x11, sent as 0x12): the request object
   * the service builds ({jsonrpc, method, params, id: 1}); settles on the 0x12 reply with
   * `error` or a defined `result`.
   */
  async query(method: string, params: unknown[]): Promise<{ result?: unknown; error?: unknown }> {
    const seq = this.send(0x11, { jsonrpc: '2.0', method, params, id: 1 });
    const reply = await until(() => this.messages.find((m) => m.seq === seq && m.type === ChannelType.RPC), `${method} reply`);
    const body = reply.body as { result?: unknown; error?: unknown };
    if (body.error === undefined && body.result === undefined) throw new Error('the SDK would keep waiting');
    return body;
  }

  /**
   * channelPromise for a transaction (0x12, not read-only): a 0x12 reply carrying only a
   * `result` (the hash) is ignored, and the promise settles on the first frame on the seq with
   * `error`, `status` or `result.status`: the 0x1000 receipt push.
   */
  async transaction(rawTx: string, groupId: number): Promise<Record<string, unknown>> {
    const seq = this.send(ChannelType.RPC, { jsonrpc: '2.0', method: 'sendRawTransaction', params: [groupId, rawTx], id: 1 });
    const settled = await until(
      () =>
        this.messages.find((m) => {
          if (m.seq !== seq) return false;
          const b = m.body as { error?: unknown; status?: unknown; result?: { status?: unknown } };
          return Boolean(b.error || b.status || (b.result && typeof b.result === 'object' && b.result.status));
        }),
      'transaction result',
    );
    return settled.body as Record<string, unknown>;
  }
}

// ---------------------------------------------------------------------------------------------
// Python SDK: client/channelhandler.py, client/channelpack.py, client/bcosclient.py,
// client/event_callback.py
// ---------------------------------------------------------------------------------------------

export interface PyPack {
  type: number;
  seq: string;
  result: number;
  /** As ChannelPack.unpack leaves it: everything after the header that was in the buffer. */
  data: Buffer;
}

/**
 * The python SDK's ChannelHandler: `ssl.SSLContext(PROTOCOL_TLSv1_2)`, `check_hostname = False`,
 * `verify_mode = CERT_REQUIRED` against ca.crt, `set_ecdh_curve("secp256k1")`, `wrap_socket`
 * without server_hostname (no SNI). ChannelRecvThread appends each `recv` to a buffer and calls
 * ChannelPack.unpack, which consumes `totallen` bytes but takes *all* bytes after the header
 * as the pack's data, so a read holding more than one frame corrupts the first one.
 */
export class PySdkClient {
  readonly packs: PyPack[] = [];
  private respbuffer = Buffer.alloc(0);
  private counter = 0;

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (msg: Buffer) => this.readChannel(msg));
    socket.on('error', () => {});
  }

  static connect(port: number, auth: SdkAuth): Promise<PySdkClient> {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ...auth,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      ecdhCurve: 'secp256k1',
      rejectUnauthorized: true,
      checkServerIdentity: () => undefined,
    });
    return new Promise((resolve, reject) => {
      socket.once('secureConnect', () => resolve(new PySdkClient(socket)));
      socket.once('error', reject);
    });
  }

  private readChannel(msg: Buffer): void {
    this.respbuffer = Buffer.concat([this.respbuffer, msg]);
    for (;;) {
      if (this.respbuffer.length < 42) return;
      const totallen = this.respbuffer.readUInt32BE(0);
      if (this.respbuffer.length < totallen) return;
      this.packs.push({
        type: this.respbuffer.readUInt16BE(4),
        seq: this.respbuffer.toString('latin1', 6, 38),
        result: this.respbuffer.readUInt32BE(38),
        data: Buffer.from(this.respbuffer.subarray(42)),
      });
      this.respbuffer = this.respbuffer.subarray(totallen);
    }
  }

  /** ChannelPack.make_seq32: uuid.uuid1().hex (32 lowercase hex digits). */
  static makeSeq32(): string {
    return randomBytes(16).toString('hex');
  }

  sendPack(type: number, data: string | Buffer, seq = PySdkClient.makeSeq32()): string {
    this.socket.write(header(type, seq, typeof data === 'string' ? Buffer.from(data, 'utf8') : data));
    return seq;
  }

  async waitPack(seq: string, type: number, timeoutMs = 3000): Promise<PyPack> {
    return until(() => this.packs.find((p) => p.seq === seq && p.type === type), `pack 0x${type.toString(16)} on ${seq}`, timeoutMs);
  }

  /** encode_rpc_request: ids from itertools.count() (0 first), `params or []`, json text. */
  rpcBody(method: string, params: unknown[]): string {
    return JSON.stringify({ jsonrpc: '2.0', method, params, id: this.counter++ });
  }

  /**
   * onResponse for 0x12 / 0x1000: json_decode of the data; an `error` key, or a missing
   * `result` key, wraps the object as {"result": obj}; common_request then raises if
   * result is a dict with "error", and returns response["result"].
   */
  static commonResult(pack: PyPack): unknown {
    if (pack.result !== 0) throw new Error(`response from server failed, result: ${pack.result}`);
    const response = JSON.parse(pack.data.toString('utf8')) as Record<string, unknown>;
    const item = 'error' in response || !('result' in response) ? { result: response } : response;
    const result = item.result;
    if (result && typeof result === 'object' && 'error' in result) throw new Error(`is_error_response: ${JSON.stringify(result)}`);
    return result;
  }

  async request(method: string, params: unknown[]): Promise<unknown> {
    const seq = this.sendPack(ChannelType.RPC, this.rpcBody(method, params));
    return PySdkClient.commonResult(await this.waitPack(seq, ChannelType.RPC));
  }
}

// ---------------------------------------------------------------------------------------------
// Java SDK: network/ConnectionManager.java, channel/ChannelMsgHandler.java, channel/ChannelImp.java,
// channel/model/{ChannelHandshake,HeartBeatParser,EnumNodeVersion}.java, utils/ChannelUtils.java
// ---------------------------------------------------------------------------------------------

/**
 * Netty with `SslContextBuilder.forClient().trustManager(ca).keyManager(sdk.crt, sdk.key)
 * .sslProvider(OPENSSL)`: the provider's default protocols (TLS 1.2 and 1.3 offered), no SNI
 * (newHandler without a peer host), the server verified against ca.crt without a hostname check.
 * Frames come out of LengthFieldBasedFrameDecoder(MAX, 0, 4, -4, 0), i.e. a correct
 * length-prefixed decoder, which RawClient is. The offered groups are OpenSSL's usual ones plus
 * secp256k1: without it no client can use a secp256k1 channel certificate (FISCO's own -R nodes
 * included), see the report.
 */
export function connectJavaSdk(port: number, auth: SdkAuth): Promise<RawClient> {
  const socket = tls.connect({
    host: '127.0.0.1',
    port,
    ...auth,
    ecdhCurve: 'X25519:prime256v1:secp384r1:secp256k1',
    rejectUnauthorized: true,
    checkServerIdentity: () => undefined,
  });
  return new Promise((resolve, reject) => {
    socket.once('secureConnect', () => resolve(new RawClient(socket)));
    socket.once('error', reject);
  });
}

/**
 * ChannelImp.queryChannelProtocolVersion's 0x14 body: ChannelHandshake {maximumSupport,
 * minimumSupport, clientType} as Jackson writes it (field order).
 */
export const JAVA_HANDSHAKE = '{"maximumSupport":3,"minimumSupport":1,"clientType":"java-sdk"}';

/** connectJavaSdk, then the v3 handshake the Java SDK makes with a 2.1+ node. */
export async function connectJavaSdkV3(port: number, auth: SdkAuth): Promise<RawClient> {
  const c = await connectJavaSdk(port, auth);
  const reply = await c.request(ChannelType.HANDSHAKE, javaSeq(), JAVA_HANDSHAKE);
  if (reply.result !== 0) throw new Error(`handshake refused: result ${reply.result}`);
  return c;
}

/** ChannelUtils.newSeq: UUID.randomUUID() without dashes. */
export const javaSeq = (): string => randomUUID().replace(/-/g, '');

/** EnumNodeVersion.channelProtocolHandleShakeSupport: "a.b.c[-ext]" (a trailing "gm" cut), 2.x with x ≥ 1. */
export function javaHandshakeSupported(supportedVersion: string): boolean {
  const version = supportedVersion.endsWith('gm') ? supportedVersion.slice(0, supportedVersion.indexOf('gm')) : supportedVersion;
  const parts = version.trim().split('-')[0]!.split('.');
  if (parts.length < 3 || parts.some((p) => !/^\d+$/.test(p.trim()))) throw new Error(`invalid node version format, version: ${version}`);
  return Number(parts[0]) === 2 && Number(parts[1]) >= 1;
}

/** AMOP-style topic data: one byte topic length + 1, the topic, the content. */
export function topicData(topic: string, content: string): Buffer {
  return Buffer.concat([Buffer.of(Buffer.byteLength(topic) + 1), Buffer.from(topic, 'utf8'), Buffer.from(content, 'utf8')]);
}

export function splitTopic(data: Uint8Array): { topic: string; content: string } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const length = bytes[0]!;
  return { topic: bytes.toString('utf8', 1, length), content: bytes.toString('utf8', length) };
}

export type { ChannelFrame };
