import { createRequire } from 'node:module';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { packagePath } from '../package-root.js';

/** The secp256k1 primitives the ECDSA suite needs; 64-byte public keys without the 0x04 prefix. */
export interface Secp256k1Backend {
  readonly name: 'native' | 'noble';
  sign(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  /** 64-byte public key, or null when recovery fails. */
  recover(digest: Uint8Array, signature64: Uint8Array, recid: number): Uint8Array | null;
  verify(digest: Uint8Array, signature64: Uint8Array, publicKey: Uint8Array): boolean;
  publicKey(privateKey: Uint8Array): Uint8Array;
  isValidPrivateKey(privateKey: Uint8Array): boolean;
}

interface NativeSecp256k1 {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaVerify(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): boolean;
  publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array;
  privateKeyVerify(key: Uint8Array): boolean;
}

const withPrefix = (publicKey: Uint8Array): Uint8Array => {
  const out = new Uint8Array(65);
  out[0] = 4;
  out.set(publicKey, 1);
  return out;
};

/** native/secp256k1-system.c: recovery through the system's libsecp256k1. */
interface SystemSecp256k1 {
  /** The 65-byte uncompressed key, or null; throws for arguments of the wrong shape. */
  recover(digest: Uint8Array, signature64: Uint8Array, recid: number): Uint8Array | null;
}

function nativeBackend(lib: NativeSecp256k1, system: SystemSecp256k1 | undefined): Secp256k1Backend {
  return {
    name: 'native',
    sign: (digest, key) => lib.ecdsaSign(digest, key),
    recover: system
      ? (digest, sig, recid) => {
          try {
            return system.recover(digest, sig, recid)?.subarray(1) ?? null;
          } catch {
            return null;
          }
        }
      : (digest, sig, recid) => {
          try {
            return lib.ecdsaRecover(sig, recid, digest, false).subarray(1);
          } catch {
            return null;
          }
        },
    verify(digest, sig, pub) {
      try {
        return lib.ecdsaVerify(sig, digest, withPrefix(pub));
      } catch {
        return false;
      }
    },
    publicKey: (key) => lib.publicKeyCreate(key, false).subarray(1),
    isValidPrivateKey: (key) => key.length === 32 && lib.privateKeyVerify(key),
  };
}

export const nobleBackend: Secp256k1Backend = {
  name: 'noble',
  sign(digest, key) {
    const rec = noble.sign(digest, key, { prehash: false, format: 'recovered' });
    return { signature: rec.subarray(1), recid: rec[0]! };
  },
  recover(digest, sig, recid) {
    try {
      const rec = new Uint8Array(65);
      rec[0] = recid;
      rec.set(sig, 1);
      const compressed = noble.recoverPublicKey(rec, digest, { prehash: false });
      return noble.Point.fromBytes(compressed).toBytes(false).subarray(1);
    } catch {
      return null;
    }
  },
  verify(digest, sig, pub) {
    try {
      return noble.verify(sig, digest, withPrefix(pub), { prehash: false, lowS: false });
    } catch {
      return false;
    }
  },
  publicKey: (key) => noble.getPublicKey(key, false).subarray(1),
  isValidPrivateKey: (key) => key.length === 32 && noble.utils.isValidSecretKey(key),
};

let native: Secp256k1Backend | null | undefined;
let system: SystemSecp256k1 | null | undefined;

/**
 * The addon of native/secp256k1-system.c (scripts/build-native.js builds it where the system has
 * libsecp256k1), else undefined. Its recovery is about a fifth faster than the npm package's
 * (measured here: 55 µs against 71.5 µs, the median of 30 alternating rounds of 2,000).
 */
export function loadSystemRecovery(): SystemSecp256k1 | undefined {
  if (system === undefined) {
    try {
      system = createRequire(import.meta.url)(packagePath('native', 'build', 'secp256k1-system.node')) as SystemSecp256k1;
    } catch {
      system = null;
    }
  }
  return system ?? undefined;
}

/** The native addon when it loads (~25x faster recovery than noble), recovering through the system's libsecp256k1 where that is built; else undefined. */
export function loadNativeBackend(): Secp256k1Backend | undefined {
  if (native === undefined) {
    try {
      // `secp256k1/bindings` is the addon alone; the package root would silently fall back to elliptic.
      const lib = createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
      native = nativeBackend(lib, loadSystemRecovery());
    } catch {
      native = null;
    }
  }
  return native ?? undefined;
}

/** Which library recovers ECDSA keys in this process. */
export function recoveryLibrary(): string {
  if (!loadNativeBackend()) return '@noble/curves (pure JavaScript)';
  return loadSystemRecovery() ? "the system's libsecp256k1 (native/secp256k1-system.c)" : 'the secp256k1 npm package';
}
