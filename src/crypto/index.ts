import { EcdsaSuite } from './ecdsa-suite.js';
import { Sm2Suite } from './sm2-suite.js';
import type { CryptoSuite, SuiteName } from './suite.js';

export type {
  CryptoSuite,
  SuiteName,
  KeyPair,
  RandomSource,
  Signature,
  EcdsaSignature,
  Sm2Signature,
  SignatureFormError,
} from './suite.js';
export { CryptoError, SECP256K1_N, SM2_N } from './suite.js';
export { EcdsaSuite, type EcdsaBackendChoice } from './ecdsa-suite.js';
export { Sm2Suite, SM2_DEFAULT_USER_ID } from './sm2-suite.js';
export { keccak256 } from './keccak.js';
export { loadNativeBackend, loadSystemRecovery, nobleBackend, recoveryLibrary, type Secp256k1Backend } from './secp256k1-backend.js';
export { sm3 } from './sm3.js';

const shared = new Map<SuiteName, CryptoSuite>();

/** The process-wide suite of that name (stateless apart from caches, so sharing is safe). */
export function getSuite(name: SuiteName): CryptoSuite {
  let suite = shared.get(name);
  if (!suite) {
    suite = name === 'ecdsa' ? new EcdsaSuite() : new Sm2Suite();
    shared.set(name, suite);
  }
  return suite;
}

export function isSuiteName(value: unknown): value is SuiteName {
  return value === 'ecdsa' || value === 'sm';
}
export { VerificationCache, withVerificationCache } from './verification-cache.js';
