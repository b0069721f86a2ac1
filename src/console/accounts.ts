// The console's account: a PEM private key in <keyStoreDir>/ecdsa/ (or gm/ on SM chains), named
// by its address as FISCO's console names them. One is created on first use and reused after.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { toHex } from '../codec/index.js';
import type { CryptoSuite, KeyPair } from '../crypto/index.js';
import { readNodeKey } from '../host/identity/index.js';
import { ConsoleError } from './console-error.js';

const run = promisify(execFile);

export interface Account {
  readonly key: KeyPair;
  readonly address: string;
  readonly file: string;
}

async function newKeyPem(suite: CryptoSuite, file: string): Promise<void> {
  if (suite.name === 'ecdsa') {
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

/** The account in `keyStoreDir` for `suite` (the oldest key there), created if there is none. */
export async function loadOrCreateAccount(keyStoreDir: string, suite: CryptoSuite): Promise<Account & { created: boolean }> {
  const dir = path.join(keyStoreDir, suite.name === 'sm' ? 'gm' : 'ecdsa');
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
    return { ...(await readAccount(path.join(dir, oldest.name), suite)), created: false };
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new ConsoleError(`${dir}: cannot create the account folder: ${(error as Error).message}`);
  }
  const temporary = path.join(dir, `.new-${process.pid}.pem`);
  await newKeyPem(suite, temporary);
  const account = await readAccount(temporary, suite);
  const file = path.join(dir, `${account.address}.pem`);
  renameSync(temporary, file);
  return { ...account, file, created: true };
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
