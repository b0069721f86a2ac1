import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getSuite } from '../crypto/index.js';
import { Node } from '../node/index.js';
import { startChannelServer, type ChannelServer } from '../channel/index.js';
import { createRpcService, startHttpServer, type RpcHttpServer } from '../rpc/index.js';
import { FileLogSink, RealClock, RealRandomness, TlsTransport, type Env, type LogLevel, type Tracer } from '../runtime/index.js';
import { StorageFailure } from '../storage/index.js';
import { ClosingStoreFactory } from './closing-store-factory.js';
import { parseStorageFault, STORAGE_FAULT_VARIABLE } from './storage-faults.js';
import { readGroupFiles } from './group-files.js';
import { ConfigError } from './ini-file.js';
import { readNodeConfig, type NodeConfig } from './node-config.js';
import { ownCertificateNodeId, peerNodeId, readNodeKey } from './node-identity.js';
import { fileSystemWords } from '../runtime/files/index.js';

/** A node that cannot start for a reason outside its config files (a port in use, a folder it cannot write). */
export class StartError extends Error {
  override readonly name = 'StartError';
}

/** Limits of the JSON-RPC HTTP server of a real node. */
export const RPC_LIMITS = {
  /** A request (headers and body) must arrive within this time, so a client sending a byte a second is cut off within 10 s. */
  requestTimeoutMs: 8_000,
  /** Idle keep-alive connections are closed after this long. */
  keepAliveTimeoutMs: 5_000,
  /** Past this the oldest silent, then the slowest incomplete, then the oldest idle connection makes room (see startHttpServer). */
  maxConnections: 1_000,
} as const;

export interface NodeHostOptions {
  /** Lines for stdout (start.sh waits for "is running"). */
  readonly say?: (line: string) => void;
  /** A fault the node cannot go on after (a bug in a timer or handler, a failed store); the host stops and the process should exit 1. */
  readonly onFatal?: (error: unknown) => void;
  /**
   * A group's store failed. By then the group has stopped, the error line is in the log and the
   * JSON-RPC and channel listeners are closed; `onFatal` follows, as FISCO raises SIGTERM.
   */
  readonly onStorageFailure?: (groupId: number, failure: StorageFailure) => void;
  /** The process environment (default process.env), read for the fault-injection variable. */
  readonly environment?: NodeJS.ProcessEnv;
}

/** A running node process: its node, servers and Env, and how to stop them. */
export interface NodeHost {
  readonly config: NodeConfig;
  readonly node: Node;
  readonly name: string;
  readonly rpc: RpcHttpServer;
  /** The channel port SDKs and the console use (FISCO's channel protocol over TLS). */
  readonly channel: ChannelServer;
  readonly transport: TlsTransport;
  /** Closes listeners, lets the block being written finish, closes the database; idempotent. */
  stop(): Promise<void>;
}

/** `[YYYY-mm-dd HH:MM:SS]`, local time, as FISCO's binary prints on stdout. */
export function stdoutStamp(date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `[${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}]`;
}


/**
 * Reads `config.ini` and the group files and starts one node: LevelDB under the group data
 * path, the TLS p2p transport, FISCO log files, and the JSON-RPC HTTP server. Whatever was
 * started is closed again if a later step fails.
 */
export async function startNodeHost(configFile: string, options: NodeHostOptions = {}): Promise<NodeHost> {
  const config = await readNodeConfig(configFile);
  const suite = getSuite(config.smCrypto ? 'sm' : 'ecdsa');
  const groups = await readGroupFiles(config.groupConfigPath);
  const key = await readNodeKey(config.security.key, suite);
  const nodeId = Buffer.from(key.publicKey).toString('hex');
  const certId = await ownCertificateNodeId(config.security.tlsCert, suite.name);
  if (certId !== nodeId) {
    throw new ConfigError(`${config.security.tlsCert}: the certificate is for node ${certId.slice(0, 16)}…, but ${config.security.key} is node ${nodeId.slice(0, 16)}…`);
  }
  const name = path.basename(config.dir);
  const [tlsKey, tlsCert, tlsCa] = await Promise.all(
    [config.security.tlsKey, config.security.tlsCert, config.security.tlsCaCert].map((file) =>
      readFile(file).catch((error: NodeJS.ErrnoException) => {
        throw new ConfigError(`${file}: cannot read: ${fileSystemWords(error)}`);
      }),
    ),
  );

  const cleanup: Array<() => Promise<void> | void> = [];
  const undo = async () => {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
  };
  // a fault before the node is up fails the start; after, it stops the node
  let early: unknown;
  let fatal: (error: unknown) => void = (error) => (early ??= error);
  try {
    const log = new FileLogSink({
      dir: config.log.path,
      enable: config.log.enable,
      minLevel: config.log.level,
      maxFileBytes: config.log.maxFileBytes,
      flush: config.log.flush,
      onError: (error) => options.say?.(`${stdoutStamp()} cannot write the log under ${config.log.path}: ${error.message}`),
    });
    cleanup.push(() => log.close());
    const clock = new RealClock((error) => fatal(error));
    cleanup.push(() => clock.stop());
    const write = (level: LogLevel, message: string) => log.write(level, clock.now(), message);

    const identities = new Map<string, { agency: string; nodeName: string }>();
    const nodeRef: { node?: Node } = {};
    const identify = peerNodeId(suite.name);
    const transport = TlsTransport.create({
      listen: config.p2p.listen,
      peers: config.p2p.peers,
      tls: { key: tlsKey!, cert: tlsCert!, ca: tlsCa! },
      selfId: nodeId,
      // room for both directions of every allowed peer; handshakes have a bound of their own
      maxInbound: 2 * config.p2p.maxNodes,
      // the members of this node's groups always get in, whoever else holds connections
      preferred: (id) => nodeRef.node?.groupIds().some((g) => nodeRef.node?.groupById(g)?.isMember(id)) === true,
      identify: (cert) => {
        const id = identify(cert);
        // getPeers' Agency is the agency that issued the node certificate (build-chain: CN=agency), Node its own CN
        if (typeof id === 'string') identities.set(id, { agency: String(cert.issuer?.CN ?? ''), nodeName: String(cert.subject?.CN ?? '') });
        return id;
      },
      refuse: (id) => {
        if (config.blacklist.has(id)) return 'in [certificate_blacklist]';
        if (config.whitelist.size > 0 && !config.whitelist.has(id)) return 'not in [certificate_whitelist]';
        return undefined;
      },
      log: write,
    });
    // a real node keeps no trace; its commits reach the channel's block notify
    const channelRef: { server?: ChannelServer } = {};
    const rpcRef: { server?: RpcHttpServer } = {};
    const trace: Tracer = {
      event: (kind, fields) => {
        const channel = channelRef.server;
        if (kind !== 'block-committed' || !channel) return;
        channel.blockCommitted(fields['group'] as number, fields['number'] as number);
      },
      probe: () => undefined,
    };
    const faultSpec = parseStorageFault((options.environment ?? process.env)[STORAGE_FAULT_VARIABLE]);
    if (faultSpec) write('warning', `[INITIALIZER] fault injection: a ${faultSpec.kind} write fails (number ${faultSpec.nth} after start),variable=${STORAGE_FAULT_VARIABLE}`);
    const storage = new ClosingStoreFactory(
      config.groupDataPath,
      faultSpec && { spec: faultSpec, onInjected: (store) => write('warning', `[INITIALIZER] injected storage fault fired,kind=${faultSpec.kind},file=${store}`) },
    );
    cleanup.push(() => storage.closeAll());
    const env: Env = {
      nodeName: name,
      clock,
      transport,
      random: new RealRandomness(),
      storage,
      log: { write: (level, time, message) => log.write(level, time, message) },
      trace,
    };
    write('info', `[INITIALIZER] node starting,nodeId=${nodeId},p2p=${config.p2p.listen.host}:${config.p2p.listen.port},supported_version=${config.version.text}`);
    const node = await Node.start({
      env,
      key,
      suite,
      version: config.version,
      chainId: config.chainId,
      groups: groups.map((g) => g.genesis),
      poolLimit: Math.min(...groups.map((g) => g.poolLimit)),
      poolMemoryLimit: Math.min(...groups.map((g) => g.poolMemoryLimit)),
      peerAddress: (id) => transport.peerAddress(id) ?? '',
      peerIdentity: (id) => identities.get(id) ?? { agency: '', nodeName: '' },
      onStorageFailure: (groupId, failure) => {
        // nothing more answers from this node: the client listeners close at once, then the node stops
        const rpc = rpcRef.server;
        if (rpc) {
          rpc.server.close();
          rpc.server.closeAllConnections();
        }
        void channelRef.server?.close();
        write('error', `[INITIALIZER] storage failure, the node stops,group=${groupId},operation=${failure.operation},file=${failure.location},error=${failure.message}`);
        options.onStorageFailure?.(groupId, failure);
        fatal(failure);
      },
    }).catch((error: unknown) => {
      // a store that cannot be opened (or fails while the groups load) is an error line too
      if (error instanceof StorageFailure) write('error', `[INITIALIZER] storage failure, the node cannot start,operation=${error.operation},file=${error.location},error=${error.message}`);
      throw error;
    });
    nodeRef.node = node;
    const drain = async () => {
      node.stop();
      await Promise.all(node.groupIds().map((id) => node.groupById(id)!.queue.run(() => undefined)));
    };
    cleanup.push(drain);
    await transport.start().catch((error: Error) => {
      throw new StartError(`${error.message} ([p2p] listen_ip, listen_port in ${config.file})`);
    });
    cleanup.push(() => transport.close());
    const service = createRpcService(node);
    const rpc = await startHttpServer(service, {
      host: config.rpc.jsonrpc.host,
      port: config.rpc.jsonrpc.port,
      ...RPC_LIMITS,
      headersTimeoutMs: RPC_LIMITS.requestTimeoutMs,
      log: (message) => write('warning', message),
    }).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the address is already in use (EADDRINUSE)' : error.message;
      throw new StartError(`cannot listen for JSON-RPC on ${config.rpc.jsonrpc.host}:${config.rpc.jsonrpc.port}: ${why} ([rpc] jsonrpc_listen_ip, jsonrpc_listen_port in ${config.file})`);
    });
    rpcRef.server = rpc;
    cleanup.push(() => rpc.close());
    const channelServer = await startChannelServer({
      host: config.rpc.channel.host,
      port: config.rpc.channel.port,
      tls: { key: tlsKey!, cert: tlsCert!, ca: tlsCa! },
      service,
      supportedVersion: config.version.text,
      node,
      checkCertIssuer: config.security.checkCertIssuer,
      log: (message) => write('info', `[CHANNEL]${message}`),
    }).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the address is already in use (EADDRINUSE)' : error.message;
      throw new StartError(`cannot listen for the channel on ${config.rpc.channel.host}:${config.rpc.channel.port}: ${why} ([rpc] channel_listen_ip, channel_listen_port in ${config.file})`);
    });
    channelRef.server = channelServer;
    cleanup.push(() => channelServer.close());
    write('info', `[INITIALIZER] node started,rpc=${config.rpc.jsonrpc.host}:${rpc.port},channel=${channelServer.host}:${channelServer.port},groups=${node.groupIds().join('|')}`);

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        write('info', '[INITIALIZER] node stopping');
        // listeners first, so nothing new arrives; then the group queues finish what they hold
        await undo();
      })();
      return stopping;
    };
    let fatalSeen = false;
    fatal = (error) => {
      // a failed store stops the node once; its leftovers (a timer's job rejecting on the stopped store) say nothing new
      if (fatalSeen && error instanceof StorageFailure) return;
      fatalSeen = true;
      if (!(error instanceof StorageFailure)) write('error', `[INITIALIZER] fatal error, the node stops,error=${(error as Error)?.stack ?? String(error)}`);
      options.onFatal?.(error);
    };
    if (early !== undefined) throw early;
    return { config, node, name, rpc, channel: channelServer, transport, stop };
  } catch (error) {
    await undo();
    throw error;
  }
}
