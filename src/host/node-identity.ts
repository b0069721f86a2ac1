import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DetailedPeerCertificate } from 'node:tls';
import { promisify } from 'node:util';
import { fromHex, toHexNoPrefix } from '../codec/index.js';
import type { CryptoSuite, KeyPair } from '../crypto/index.js';
import { ConfigError } from './ini-file.js';
import { fileSystemWords } from '../runtime/files/index.js';

const run = promisify(execFile);

/** SM chains carry the SM2 node id in the secp256k1 TLS certificate's subjectAltName (Node's TLS cannot speak SM TLS). */
export const NODE_ID_URI_PREFIX = 'URI:fisco-node-id:';

/** The node key of `file` as a key pair of `suite`; the public key's hex is the node id. */
export async function readNodeKey(file: string, suite: CryptoSuite): Promise<KeyPair> {
  const pem = await readPem(file, 'the node key');
  const privateKey = suite.name === 'sm' ? await sm2PrivateKey(file) : secp256k1PrivateKey(pem, file);
  try {
    return suite.keyPairFromPrivateKey(privateKey);
  } catch (error) {
    throw new ConfigError(`${file}: not a usable ${suite.name === 'sm' ? 'SM2' : 'secp256k1'} private key: ${(error as Error).message}`);
  }
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read ${what}: ${fileSystemWords(error as NodeJS.ErrnoException)}`);
  }
}

function secp256k1PrivateKey(pem: string, file: string): Uint8Array {
  let key;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new ConfigError(`${file}: not a PEM private key: ${(error as Error).message}`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || curve !== 'secp256k1') {
    throw new ConfigError(`${file}: the node key must be a secp256k1 EC key (got ${key.asymmetricKeyType ?? 'unknown'}${curve ? ` ${curve}` : ''}); SM chains set [chain] sm_crypto=true`);
  }
  const d = key.export({ format: 'jwk' }).d;
  if (!d) throw new ConfigError(`${file}: the key has no private part`);
  const bytes = new Uint8Array(Buffer.from(d, 'base64url'));
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

/** Node's crypto cannot export SM2 keys, so the system openssl prints it (as build-chain made it). */
async function sm2PrivateKey(file: string): Promise<Uint8Array> {
  let stdout: string;
  try {
    ({ stdout } = await run('openssl', ['pkey', '-in', file, '-text', '-noout'], { timeout: 10_000 }));
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    const why = e.code === 'ENOENT' ? 'the openssl command is not installed' : (e.stderr ?? e.message).trim().split('\n')[0];
    throw new ConfigError(`${file}: cannot read the SM2 node key with openssl: ${why}`);
  }
  const m = /priv:\s*\n((?:\s+[0-9a-f:]+\n?)+)/i.exec(stdout);
  if (!m) throw new ConfigError(`${file}: openssl shows no private key in it`);
  const hex = m[1]!.replace(/[\s:]/g, '');
  const bytes = fromHex(hex.length > 64 ? hex.slice(hex.length - 64) : hex.padStart(64, '0'));
  return bytes;
}

/** The node id a peer's (or our own) TLS certificate proves, or what is wrong with it. */
export function certificateNodeId(suite: CryptoSuite['name'], cert: { pubkey?: Buffer; subjectaltname?: string }): string | { error: string } {
  if (suite === 'sm') {
    const uri = (cert.subjectaltname ?? '').split(/,\s*/).find((s) => s.startsWith(NODE_ID_URI_PREFIX));
    if (!uri) return { error: 'the certificate names no SM2 node id (subjectAltName URI:fisco-node-id:…)' };
    const id = uri.slice(NODE_ID_URI_PREFIX.length).toLowerCase();
    return /^[0-9a-f]{128}$/.test(id) ? id : { error: `the certificate's node id "${id.slice(0, 20)}…" is not 128 hex characters` };
  }
  const key = cert.pubkey;
  if (!key || key.length !== 65 || key[0] !== 4) return { error: 'the certificate key is not an uncompressed EC public key' };
  return toHexNoPrefix(key.subarray(1));
}

/** For a peer certificate seen during a TLS handshake. */
export function peerNodeId(suite: CryptoSuite['name']): (cert: DetailedPeerCertificate) => string | { error: string } {
  return (cert) => certificateNodeId(suite, cert);
}

/** The node id our own TLS certificate file proves (so a node whose key and certificate disagree refuses to start). */
export async function ownCertificateNodeId(file: string, suite: CryptoSuite['name']): Promise<string> {
  const pem = await readPem(file, 'the node certificate');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pem);
  } catch (error) {
    throw new ConfigError(`${file}: not a PEM certificate: ${(error as Error).message}`);
  }
  const jwk = x509.publicKey.export({ format: 'jwk' });
  const pubkey =
    jwk.kty === 'EC' && jwk.crv === 'secp256k1' && jwk.x && jwk.y
      ? Buffer.concat([Buffer.of(4), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')])
      : undefined;
  if (!pubkey) throw new ConfigError(`${file}: the TLS certificate must hold a secp256k1 key`);
  const id = certificateNodeId(suite, { pubkey, ...(x509.subjectAltName ? { subjectaltname: x509.subjectAltName } : {}) });
  if (typeof id !== 'string') throw new ConfigError(`${file}: ${id.error}`);
  return id;
}
