// The console's account: a PEM private key in <keyStoreDir>/ecdsa/ (or gm/ on SM chains), named
// by its address as FISCO's console names them. One is created on first use and reused after.
import { execFile } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, toHex } from '../codec/index.js';
import type { CryptoSuite, KeyPair, SuiteName } from '../crypto/index.js';
import { readNodeKey } from '../host/identity/index.js';
import { ConsoleError } from './console-error.js';

const run = promisify(execFile);

export interface Account {
  readonly key: KeyPair;
  readonly address: string;
  readonly file: string;
}

/** The account's key file and address, without its key pair (what a read-only command needs). */
export interface AccountFile {
  readonly address: string;
  readonly file: string;
  readonly created: boolean;
}

async function newKeyPem(suiteName: SuiteName, file: string): Promise<void> {
  if (suiteName === 'ecdsa') {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    return;
  }
  // Node's crypto cannot make SM2 keys; the system openssl can
  try {
    await run('openssl', ['genpkey', '-algorithm', 'SM2', '-out', file], { timeout: 10_000 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    throw new ConsoleError(`cannot create an SM2 account key: ${e.code === 'ENOENT' ? 'the openssl command is not installed' : (e.stderr ?? e.message).trim().split('\n')[0]}`);
  }
}

/**
 * The account in `keyStoreDir` for the chain's suite (the oldest key there), created if there is
 * none, with its address. A secp256k1 key's address comes from Node's own crypto and keccak256
 * (the public key's x and y in the key's JWK), so that a console that only reads loads no curve
 * library; an SM2 key's through the SM suite.
 */
export async function locateAccount(keyStoreDir: string, suiteName: SuiteName): Promise<AccountFile> {
  const dir = path.join(keyStoreDir, suiteName === 'sm' ? 'gm' : 'ecdsa');
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.pem'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConsoleError(`${dir}: cannot list account keys: ${(error as Error).message}`);
  }
  if (names.length > 0) {
    const oldest = names
      .map((name) => ({ name, time: statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => a.time - b.time || (a.name < b.name ? -1 : 1))[0]!;
    const file = path.join(dir, oldest.name);
    return { file, address: await accountAddress(file, suiteName), created: false };
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new ConsoleError(`${dir}: cannot create the account folder: ${(error as Error).message}`);
  }
  const temporary = path.join(dir, `.new-${process.pid}.pem`);
  await newKeyPem(suiteName, temporary);
  const address = await accountAddress(temporary, suiteName);
  const file = path.join(dir, `${address}.pem`);
  renameSync(temporary, file);
  return { file, address, created: true };
}

/** The address of the key in `file`: keccak256 of a secp256k1 public key (x ‖ y), last 20 bytes; an SM2 key's through the SM suite. */
async function accountAddress(file: string, suiteName: SuiteName): Promise<string> {
  if (suiteName === 'sm') {
    const { getSuite } = await import('../crypto/index.js');
    return (await readAccount(file, getSuite('sm'))).address;
  }
  let jwk: { crv?: string; x?: string; y?: string };
  try {
    const key = createPrivateKey(readFileSync(file, 'utf8'));
    jwk = key.export({ format: 'jwk' }) as typeof jwk;
  } catch (error) {
    throw new ConsoleError(`account key ${file}: not a PEM private key: ${(error as Error).message}`);
  }
  if (jwk.crv !== 'secp256k1' || !jwk.x || !jwk.y) throw new ConsoleError(`account key ${file}: not a secp256k1 key (curve ${jwk.crv ?? 'unknown'})`);
  const coordinate = (b64: string) => {
    const bytes = Buffer.from(b64, 'base64url');
    const out = new Uint8Array(32);
    out.set(bytes, 32 - bytes.length);
    return out;
  };
  return toHex(keccak_256(concatBytes(coordinate(jwk.x), coordinate(jwk.y))).subarray(12));
}

export async function readAccount(file: string, suite: CryptoSuite): Promise<Account> {
  let key: KeyPair;
  try {
    key = await readNodeKey(file, suite);
  } catch (error) {
    throw new ConsoleError(`account key ${(error as Error).message}`);
  }
  return { key, address: toHex(suite.address(key.publicKey)), file };
}
