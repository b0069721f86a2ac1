// What a node's getClientVersion answer says about the chain: the interface variant it speaks
// and the product version (conform and record read both from it).
import type { InterfaceVariant } from '../codec/index.js';
import { ProtocolVersion } from './protocol-version.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** earlier for supported_version 2.0.0-rc1, later for anything newer; no Supported Version field at all means earlier. */
export function interfaceVariantOfClientVersion(version: unknown): InterfaceVariant {
  if (!isObject(version) || typeof version['Supported Version'] !== 'string') return 'earlier';
  try {
    return ProtocolVersion.parse(version['Supported Version']).interfaceVariant;
  } catch {
    return 'later';
  }
}

/** The product's own version ("FISCO-BCOS Version", or any other "… Version" but the supported one). */
export function productVersionOf(version: unknown): string | undefined {
  if (!isObject(version)) return undefined;
  const key = Object.keys(version).find((k) => k.endsWith(' Version') && k !== 'Supported Version');
  return key && typeof version[key] === 'string' ? version[key] : undefined;
}
