import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ProtocolVersion } from '../chain/index.js';
import type { LogLevel } from '../runtime/index.js';
import { ConfigError, IniFile, readers } from './ini-file.js';
import { fileSystemWords } from '../runtime/files/index.js';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** What a node process takes from `config.ini` (FISCO 2.x sections and keys); paths are absolute. */
export interface NodeConfig {
  readonly file: string;
  /** The directory holding config.ini: relative paths in it are read from here. */
  readonly dir: string;
  readonly rpc: { readonly jsonrpc: Endpoint; readonly channel: Endpoint };
  /** `maxNodes`: `[p2p] max_nodes_limit`, the most peers a node talks to (FISCO's default 100). */
  readonly p2p: { readonly listen: Endpoint; readonly peers: readonly Endpoint[]; readonly maxNodes: number };
  readonly blacklist: ReadonlySet<string>;
  /** Empty: every node the CA certified may connect. */
  readonly whitelist: ReadonlySet<string>;
  readonly groupDataPath: string;
  readonly groupConfigPath: string;
  readonly security: {
    readonly dataPath: string;
    /** The node key, certificate and CA of the chain's suite (SM chains: gmnode.key, gmnode.crt, gmca.crt). */
    readonly key: string;
    readonly cert: string;
    readonly caCert: string;
    /** The secp256k1 TLS identity for p2p: the same files on ECDSA chains; `tls_*` keys on SM chains. */
    readonly tlsKey: string;
    readonly tlsCert: string;
    readonly tlsCaCert: string;
    /** `check_cert_issuer` (default true): an SDK certificate must have the node certificate's issuer. */
    readonly checkCertIssuer: boolean;
  };
  readonly chainId: bigint;
  readonly smCrypto: boolean;
  readonly version: ProtocolVersion;
  readonly log: {
    readonly enable: boolean;
    readonly path: string;
    readonly level: LogLevel;
    readonly maxFileBytes: number;
    readonly flush: boolean;
    readonly consoleOutput: boolean;
  };
}

const LOG_LEVELS: Record<string, LogLevel> = { trace: 'trace', debug: 'debug', info: 'info', warning: 'warning', error: 'error', fatal: 'error' };

/** Read and check `config.ini`; every problem is a ConfigError naming file, line and key. */
export async function readNodeConfig(file: string): Promise<NodeConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read: ${fileSystemWords(error as NodeJS.ErrnoException)}`);
  }
  return parseNodeConfig(text, absolute);
}

export function parseNodeConfig(text: string, file: string): NodeConfig {
  const ini = IniFile.parse(text, file);
  const dir = path.dirname(path.resolve(file));
  const at = (p: string) => path.resolve(dir, p);

  const jsonrpc = { host: ini.get('rpc', 'jsonrpc_listen_ip', readers.ip, '127.0.0.1'), port: ini.get('rpc', 'jsonrpc_listen_port', readers.port) };
  const channel = {
    host: ini.get('rpc', 'channel_listen_ip', readers.ip, ini.get('rpc', 'listen_ip', readers.ip, '127.0.0.1')),
    port: ini.get('rpc', 'channel_listen_port', readers.port),
  };
  const listen = { host: ini.get('p2p', 'listen_ip', readers.ip, '0.0.0.0'), port: ini.get('p2p', 'listen_port', readers.port) };
  const peerEntries = ini.entriesMatching('p2p', /^node\./);
  const peers: Endpoint[] = [];
  for (const entry of peerEntries) {
    if (!/^node\.\d+$/.test(entry.key)) throw ini.error(entry, 'peer keys are node.0, node.1, …');
    const endpoint = readers.endpoint(entry.value);
    if ('problem' in endpoint) throw ini.error(entry, endpoint.problem);
    peers.push(endpoint);
  }
  const own = new Set([jsonrpc.port, channel.port]);
  if (own.size < 2 || own.has(listen.port)) {
    const entry = ini.entry('p2p', 'listen_port') ?? ini.entry('rpc', 'jsonrpc_listen_port')!;
    throw ini.error(entry, `the p2p (${listen.port}), channel (${channel.port}) and JSON-RPC (${jsonrpc.port}) ports must differ`);
  }

  const nodeIds = (section: string, prefix: string) => {
    const ids = new Set<string>();
    for (const entry of ini.entriesMatching(section, new RegExp(`^${prefix}\\.`))) {
      const id = readers.nodeId(entry.value);
      if (typeof id !== 'string') throw ini.error(entry, id.problem);
      ids.add(id);
    }
    return ids;
  };

  const smCrypto = ini.get('chain', 'sm_crypto', readers.bool, false);
  const dataPath = at(ini.get('network_security', 'data_path', readers.nonEmpty, 'conf/'));
  const inData = (p: string) => path.resolve(dataPath, p);
  const key = inData(ini.get('network_security', 'key', readers.nonEmpty, smCrypto ? 'gmnode.key' : 'node.key'));
  const cert = inData(ini.get('network_security', 'cert', readers.nonEmpty, smCrypto ? 'gmnode.crt' : 'node.crt'));
  const caCert = inData(ini.get('network_security', 'ca_cert', readers.nonEmpty, smCrypto ? 'gmca.crt' : 'ca.crt'));
  const security = {
    dataPath,
    key,
    cert,
    caCert,
    tlsKey: smCrypto ? inData(ini.get('network_security', 'tls_key', readers.nonEmpty)) : key,
    tlsCert: smCrypto ? inData(ini.get('network_security', 'tls_cert', readers.nonEmpty)) : cert,
    tlsCaCert: smCrypto ? inData(ini.get('network_security', 'tls_ca_cert', readers.nonEmpty)) : caCert,
    checkCertIssuer: ini.get('network_security', 'check_cert_issuer', readers.bool, true),
  };

  const version = ini.get('compatibility', 'supported_version', (v) => {
    try {
      return ProtocolVersion.parse(v);
    } catch (error) {
      return { problem: (error as Error).message.replace(/^.*?: /, '') };
    }
  });
  const chainId = BigInt(ini.get('chain', 'id', readers.integer(0, 2 ** 31 - 1), 1));

  const logLevel = ini.get(
    'log',
    'level',
    (v) => LOG_LEVELS[v.toLowerCase()] ?? { problem: `"${v}" must be one of trace, debug, info, warning, error` },
    'info' as LogLevel,
  );
  const log = {
    enable: ini.get('log', 'enable', readers.bool, true),
    path: at(ini.get('log', 'log_path', readers.nonEmpty, './log')),
    level: logLevel,
    // FISCO's minimum is 100 MB: smaller values are raised to it
    maxFileBytes: Math.max(100, ini.get('log', 'max_log_file_size', readers.integer(1, 1_000_000), 200)) * 1024 * 1024,
    flush: ini.get('log', 'flush', readers.bool, true),
    consoleOutput: ini.get('log', 'enable_console_output', readers.bool, false),
  };

  if (ini.get('storage_security', 'enable', readers.bool, false)) {
    throw ini.error(ini.entry('storage_security', 'enable')!, 'disk encryption (a key manager) is not supported by Twinchain; set enable=false');
  }

  return {
    file,
    dir,
    rpc: { jsonrpc, channel },
    p2p: { listen, peers, maxNodes: ini.get('p2p', 'max_nodes_limit', readers.integer(1, 10_000), 100) },
    blacklist: nodeIds('certificate_blacklist', 'crl'),
    whitelist: nodeIds('certificate_whitelist', 'cal'),
    groupDataPath: at(ini.get('group', 'group_data_path', readers.nonEmpty, 'data/')),
    groupConfigPath: at(ini.get('group', 'group_config_path', readers.nonEmpty, 'conf/')),
    security,
    chainId,
    smCrypto,
    version,
    log,
  };
}

export { ConfigError };
