import {
  CODE_NO_AUTHORIZED,
  CODE_SUCCESS,
  CODE_TABLE_DUPLICATE_FIELD,
  CODE_TABLE_FIELD_LENGTH_OVERFLOW,
  CODE_TABLE_INVALID_FIELD,
  CODE_TABLE_NAME_ALREADY_EXIST,
  CODE_TABLE_NAME_LENGTH_OVERFLOW,
  CODE_TABLE_NOT_EXIST,
  PrecompileFailure,
  type CallContext,
} from './precompile.js';
import { SYS_TABLES, USER_TABLE_PREFIX, type TableInfo } from './system-tables.js';
import type { Row } from './table-store.js';

export type ConditionOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

export interface Condition {
  readonly field: string;
  readonly op: ConditionOp;
  readonly value: string;
}

export interface Query {
  readonly conditions: readonly Condition[];
  readonly limit?: { readonly offset: number; readonly count: number };
}

export const EMPTY_QUERY: Query = { conditions: [] };

/** FISCO limits: table names up to 48 characters, field names up to 64. */
const MAX_TABLE_NAME = 48;
const MAX_FIELD_NAME = 64;
const FIELD_NAME = /^[A-Za-z0-9_$@]+$/;

/** User tables live under `_user_<name>`; system tables keep their own names. */
export function fullTableName(name: string): string {
  return name.startsWith('_sys_') || name.startsWith(USER_TABLE_PREFIX) ? name : `${USER_TABLE_PREFIX}${name}`;
}

function compare(a: string, b: string): number {
  if (/^-?\d+$/.test(a) && /^-?\d+$/.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export function rowMatches(row: Row, conditions: readonly Condition[]): boolean {
  return conditions.every(({ field, op, value }) => {
    const actual = row[field] ?? '';
    const c = compare(actual, value);
    switch (op) {
      case 'eq':
        return actual === value;
      case 'ne':
        return actual !== value;
      case 'gt':
        return c > 0;
      case 'ge':
        return c >= 0;
      case 'lt':
        return c < 0;
      case 'le':
        return c <= 0;
    }
  });
}

function applyLimit<T>(items: T[], limit: Query['limit']): T[] {
  return limit ? items.slice(limit.offset, limit.offset + limit.count) : items;
}

/** FISCO user tables on top of the system tables; every write is permission-checked against tx.origin. */
export class UserTables {
  async info(ctx: CallContext, name: string): Promise<TableInfo | undefined> {
    return ctx.tables.tableInfo(fullTableName(name));
  }

  async create(ctx: CallContext, name: string, keyField: string, valueFields: string): Promise<number> {
    if (!(await ctx.tables.mayWrite(SYS_TABLES, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    const full = fullTableName(name);
    if (name.length === 0 || name.length > MAX_TABLE_NAME) return CODE_TABLE_NAME_LENGTH_OVERFLOW;
    const fields = valueFields.split(',').map((f) => f.trim()).filter((f) => f.length > 0);
    const all = [keyField.trim(), ...fields];
    if (all.some((f) => f.length > MAX_FIELD_NAME)) return CODE_TABLE_FIELD_LENGTH_OVERFLOW;
    if (all.some((f) => !FIELD_NAME.test(f))) return CODE_TABLE_INVALID_FIELD;
    if (new Set(all).size !== all.length) return CODE_TABLE_DUPLICATE_FIELD;
    if (await ctx.tables.tableInfo(full)) return CODE_TABLE_NAME_ALREADY_EXIST;
    await ctx.tables.createTable({ name: full, keyField: all[0]!, valueFields: fields });
    return CODE_SUCCESS;
  }

  async select(ctx: CallContext, name: string, key: string, query: Query): Promise<Row[] | number> {
    const info = await this.info(ctx, name);
    if (!info) return CODE_TABLE_NOT_EXIST;
    const rows = (await ctx.tables.tables.rows(info.name, key)).filter((r) => rowMatches(r, query.conditions));
    return applyLimit(rows, query.limit);
  }

  async insert(ctx: CallContext, name: string, key: string, entry: Readonly<Record<string, string>>): Promise<number> {
    const info = await this.info(ctx, name);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    checkFields(info, entry, true);
    const row: Record<string, string> = { [info.keyField]: key };
    for (const f of info.valueFields) row[f] = entry[f] ?? '';
    if (entry[info.keyField] !== undefined && entry[info.keyField] !== key) {
      throw new PrecompileFailure(`insert into ${name}: the entry's ${info.keyField} "${entry[info.keyField]}" differs from the key "${key}"`);
    }
    const rows = await ctx.tables.tables.rows(info.name, key);
    await ctx.tables.tables.setRows(info.name, key, [...rows, row]);
    return 1;
  }

  async update(ctx: CallContext, name: string, key: string, entry: Readonly<Record<string, string>>, query: Query): Promise<number> {
    const info = await this.info(ctx, name);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    checkFields(info, entry, false);
    const rows = await ctx.tables.tables.rows(info.name, key);
    const targets = new Set(applyLimit(rows.filter((r) => rowMatches(r, query.conditions)), query.limit));
    if (targets.size === 0) return 0;
    await ctx.tables.tables.setRows(info.name, key, rows.map((r) => (targets.has(r) ? { ...r, ...entry } : r)));
    return targets.size;
  }

  async remove(ctx: CallContext, name: string, key: string, query: Query): Promise<number> {
    const info = await this.info(ctx, name);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    const rows = await ctx.tables.tables.rows(info.name, key);
    const targets = new Set(applyLimit(rows.filter((r) => rowMatches(r, query.conditions)), query.limit));
    if (targets.size === 0) return 0;
    await ctx.tables.tables.setRows(info.name, key, rows.filter((r) => !targets.has(r)));
    return targets.size;
  }
}

function checkFields(info: TableInfo, entry: Readonly<Record<string, string>>, allowKey: boolean): void {
  for (const field of Object.keys(entry)) {
    if (field === info.keyField) {
      if (allowKey) continue;
      throw new PrecompileFailure(`table ${info.name}: the key field ${field} cannot be updated`);
    }
    if (!info.valueFields.includes(field)) {
      throw new PrecompileFailure(`table ${info.name} has no field "${field}" (fields: ${[info.keyField, ...info.valueFields].join(', ')})`);
    }
  }
}
