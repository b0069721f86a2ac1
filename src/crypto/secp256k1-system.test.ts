import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SECP256K1_N } from './suite.js';
import { bigintToFixedBytes } from '../codec/index.js';
import { loadNativeBackend, loadSystemRecovery, recoveryLibrary } from './secp256k1-backend.js';

interface NpmSecp256k1 {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array;
}
const npm = createRequire(import.meta.url)('secp256k1/bindings') as NpmSecp256k1;
const npmRecover = (digest: Uint8Array, signature: Uint8Array, recid: number): string | null => {
  try {
    return Buffer.from(npm.ecdsaRecover(signature, recid, digest, false)).toString('hex');
  } catch {
    return null;
  }
};

// where libsecp256k1's headers are installed (CI installs them), `npm install` builds the addon
const installed = process.platform === 'linux' && existsSync('/usr/include/secp256k1_recovery.h');

describe("key recovery through the system's libsecp256k1 (native/secp256k1-system.c)", () => {
  it(installed ? 'is built and used, libsecp256k1 being installed (else run npm run build)' : 'is not used where libsecp256k1 is not installed: the npm package recovers', () => {
    expect(loadSystemRecovery() !== undefined).toBe(installed);
    expect(recoveryLibrary()).toBe(installed ? "the system's libsecp256k1 (native/secp256k1-system.c)" : 'the secp256k1 npm package');
  });

  it.runIf(installed)('recovers what the secp256k1 npm package recovers, for right and wrong recovery ids and for signatures that recover nothing', () => {
    const system = loadSystemRecovery()!;
    let seed = 7;
    // deterministic bytes: the same keys and digests every run
    const random = (length: number) => Uint8Array.from({ length }, () => (seed = (seed * 48271) % 2147483647) & 0xff);
    const systemRecover = (digest: Uint8Array, signature: Uint8Array, recid: number) => {
      const key = system.recover(digest, signature, recid);
      return key === null ? null : Buffer.from(key).toString('hex');
    };
    let recovered = 0;
    for (let i = 0; i < 64; i++) {
      const digest = random(32);
      const { signature, recid } = npm.ecdsaSign(digest, Uint8Array.from([1, ...random(31)]));
      for (const id of [recid, recid ^ 1, 2, 3]) {
        const expected = npmRecover(digest, signature, id);
        expect(systemRecover(digest, signature, id)).toBe(expected);
        if (expected !== null) recovered++;
      }
    }
    // every right id recovered (and most wrong ones recover another key)
    expect(recovered).toBeGreaterThanOrEqual(64);
    const digest = random(32);
    const n = bigintToFixedBytes(SECP256K1_N, 32);
    const r = random(32);
    for (const signature of [new Uint8Array(64), Uint8Array.from([...n, ...r]), Uint8Array.from([...r, ...n]), Uint8Array.from([...r, ...new Uint8Array(32)])]) {
      expect(systemRecover(digest, signature, 0)).toBeNull();
      expect(npmRecover(digest, signature, 0)).toBeNull();
    }
  });

  it.runIf(installed)('refuses arguments of the wrong shape with a TypeError or RangeError, which the backend turns into "no key"', () => {
    const system = loadSystemRecovery()!;
    expect(() => system.recover(new Uint8Array(31), new Uint8Array(64), 0)).toThrow(new TypeError('the digest must be a Uint8Array of 32 bytes'));
    expect(() => system.recover(new Uint8Array(32), new Uint16Array(32) as unknown as Uint8Array, 0)).toThrow(TypeError);
    expect(() => system.recover(new Uint8Array(32), new Uint8Array(65), 0)).toThrow(new TypeError('the signature must be a Uint8Array of 64 bytes (r, s)'));
    expect(() => system.recover(new Uint8Array(32), new Uint8Array(64), 4)).toThrow(new RangeError('the recovery id must be 0, 1, 2 or 3'));
    expect(() => (system.recover as (...a: unknown[]) => unknown)(new Uint8Array(32))).toThrow(TypeError);
    expect(loadNativeBackend()!.recover(new Uint8Array(31), new Uint8Array(64), 0)).toBeNull();
  });
});
