import { Address } from '@ethereumjs/util';
import { bigintToFixedBytes, bytesToBigint } from '../codec/index.js';
import type { Condition, Query } from './user-tables.js';

/** Objects handed to Solidity by the Table API (FISCO gives each an address for the transaction). */
export type TableObject =
  | { readonly kind: 'table'; readonly name: string }
  | { readonly kind: 'entry'; readonly fields: Map<string, string> }
  | { readonly kind: 'entries'; readonly entries: readonly Address[] }
  | { readonly kind: 'condition'; conditions: Condition[]; limit?: Query['limit'] };

/** Object addresses start here, as in FISCO's executive context. */
export const FIRST_OBJECT_ADDRESS = 0x10000n;
/** Upper bound of object addresses (guards the address range checks). */
export const OBJECT_ADDRESS_END = 0x10000000n;

/** Live Table API objects of the current transaction; cleared between transactions. */
export class TableObjects {
  private readonly objects = new Map<bigint, TableObject>();
  private next = FIRST_OBJECT_ADDRESS;

  register(object: TableObject): Address {
    if (this.next >= OBJECT_ADDRESS_END) throw new Error('too many table objects in one transaction');
    const id = this.next++;
    this.objects.set(id, object);
    return new Address(bigintToFixedBytes(id, 20));
  }

  get(address: Address): TableObject | undefined {
    return this.objects.get(bytesToBigint(address.bytes));
  }

  reset(): void {
    this.objects.clear();
    this.next = FIRST_OBJECT_ADDRESS;
  }

  get size(): number {
    return this.objects.size;
  }
}
