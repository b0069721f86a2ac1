import { canonicalJson } from '../codec/index.js';

/** JSON as FISCO's precompiles write it (jsoncpp FastWriter): keys sorted, no spaces, trailing newline. */
export function fiscoJson(value: unknown): string {
  return `${canonicalJson(value)}\n`;
}
