import { createHash } from 'node:crypto';

export function sm3(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sm3').update(data).digest());
}
