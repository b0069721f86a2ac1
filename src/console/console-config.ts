// The console's conf/config.toml, in FISCO console 2.x's layout:
//   [cryptoMaterial] certPath = "conf"  (optional caCert / sslCert / sslKey, useSMCrypto)
//   [network]        peers = ["127.0.0.1:20200"]
//   [account]        keyStoreDir = "account", accountFileFormat = "pem"
// Paths are relative to the console folder (the one holding conf/), as FISCO's console runs from it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { ConsoleError } from './console-error.js';

/** Why a console file cannot be read, in words (the console may not import runtime/files' fuller list). */
const READ_FAILURES: Readonly<Record<string, string>> = {
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EIO: 'input/output error',
};

export interface Peer {
  readonly host: string;
  readonly port: number;
}

export interface ConsoleConfig {
  /** The config file, and the console folder paths are relative to. */
  readonly file: string;
  readonly dir: string;
  readonly certs: { readonly ca: string; readonly cert: string; readonly key: string };
  readonly peers: readonly Peer[];
  readonly keyStoreDir: string;
  /** From `useSMCrypto`; undefined lets the node's version decide. */
  readonly useSMCrypto: boolean | undefined;
}

export const CONFIG_FILE = path.join('conf', 'config.toml');

const KNOWN: Record<string, readonly string[]> = {
  cryptoMaterial: ['certPath', 'caCert', 'sslCert', 'sslKey', 'enSslCert', 'enSslKey', 'useSMCrypto'],
  network: ['peers', 'defaultGroup'],
  account: ['keyStoreDir', 'accountFileFormat', 'accountAddress', 'accountFilePath', 'password'],
  threadPool: ['channelProcessorThreadSize', 'receiptProcessorThreadSize', 'maxBlockingQueueSize'],
  amop: [],
};

/** `host:port` → a peer; throws with `where` in the message. */
export function parsePeer(text: string, where: string): Peer {
  const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new ConsoleError(`${where}: "${text}" is not host:port (e.g. 127.0.0.1:20200)`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function lineOf(text: string, key: string): number | undefined {
  const i = text.split('\n').findIndex((line) => new RegExp(`^\\s*${key}\\s*=`).test(line));
  return i < 0 ? undefined : i + 1;
}

/** Reads `<dir>/conf/config.toml`. */
export function readConsoleConfig(dir: string): ConsoleConfig {
  const file = path.join(dir, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConsoleError(
      code === 'ENOENT'
        ? `${file}: no such file; make a console folder with "twinchain console init ${dir} --sdk <node sdk folder>"`
        : `${file}: cannot read: ${READ_FAILURES[code ?? ''] ?? code ?? (error as Error).message}`,
    );
  }
  return parseConsoleConfig(text, file, dir);
}

export function parseConsoleConfig(text: string, file: string, dir: string): ConsoleConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw new ConsoleError(`${file}:${error.line}:${error.column}: ${first}`);
    }
    throw error;
  }
  const at = (key: string) => {
    const line = lineOf(text, key);
    return line === undefined ? file : `${file}:${line}`;
  };
  for (const [section, value] of Object.entries(doc)) {
    const known = KNOWN[section];
    if (!known) throw new ConsoleError(`${file}: unknown section [${section}] (known: ${Object.keys(KNOWN).map((s) => `[${s}]`).join(', ')})`);
    if (section === 'amop') continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConsoleError(`${at(section)}: ${section} must be a [${section}] section`);
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) throw new ConsoleError(`${at(key)}: [${section}] ${key}: unknown key (known: ${known.join(', ')})`);
    }
  }
  const section = (name: string) => (doc[name] ?? {}) as Record<string, unknown>;
  const str = (sectionName: string, key: string, fallback?: string): string | undefined => {
    const value = section(sectionName)[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value === '') throw new ConsoleError(`${at(key)}: [${sectionName}] ${key}: must be a non-empty string`);
    return value;
  };
  const crypto = 'cryptoMaterial';
  const certPath = path.resolve(dir, str(crypto, 'certPath', 'conf')!);
  const certFile = (key: string, name: string) => path.resolve(dir, str(crypto, key) ?? path.join(certPath, name));
  const sm = str(crypto, 'useSMCrypto');
  if (sm !== undefined && sm !== 'true' && sm !== 'false') throw new ConsoleError(`${at('useSMCrypto')}: [cryptoMaterial] useSMCrypto: must be "true" or "false" (got "${sm}")`);

  const peersValue = section('network')['peers'];
  if (peersValue === undefined) throw new ConsoleError(`${file}: [network] peers: missing (e.g. peers=["127.0.0.1:20200"])`);
  if (!Array.isArray(peersValue) || peersValue.length === 0 || !peersValue.every((p) => typeof p === 'string')) {
    throw new ConsoleError(`${at('peers')}: [network] peers: must be a non-empty list of "host:port" strings`);
  }
  const peers = (peersValue as string[]).map((p) => parsePeer(p, `${at('peers')}: [network] peers`));
  const format = str('account', 'accountFileFormat', 'pem');
  if (format !== 'pem') throw new ConsoleError(`${at('accountFileFormat')}: [account] accountFileFormat: only "pem" is supported (got "${format}")`);
  return {
    file,
    dir,
    certs: { ca: certFile('caCert', 'ca.crt'), cert: certFile('sslCert', 'sdk.crt'), key: certFile('sslKey', 'sdk.key') },
    peers,
    keyStoreDir: path.resolve(dir, str('account', 'keyStoreDir', 'account')!),
    useSMCrypto: sm === undefined ? undefined : sm === 'true',
  };
}

/** The config.toml `console init` writes. */
export function renderConsoleConfig(peers: readonly Peer[]): string {
  return `[cryptoMaterial]
certPath = "conf"                           # where ca.crt, sdk.crt and sdk.key are
# caCert = "conf/ca.crt"                    # each file may also be named on its own
# sslCert = "conf/sdk.crt"
# sslKey = "conf/sdk.key"

[network]
peers = [${peers.map((p) => `"${p.host}:${p.port}"`).join(', ')}]    # the nodes' channel ports (channel_listen_port)

[account]
keyStoreDir = "account"                     # account keys; one is created on first use
accountFileFormat = "pem"
`;
}
