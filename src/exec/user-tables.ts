import {
  CODE_NO_AUTHORIZED,
  CODE_SUCCESS,
  CODE_TABLE_NAME_ALREADY_EXIST,
  CODE_TABLE_NOT_EXIST,
  PrecompileFailure,
  type CallContext,
} from './precompile.js';
import type { TableNames, UserTablePrefix } from '../chain/index.js';
import { SYS_CNS, SYS_CONFIG, SYS_CONSENSUS, SYS_TABLE_ACCESS, SYS_TABLES, type TableInfo } from './system-tables.js';
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

/** FISCO's USER_TABLE_NAME_MAX_LENGTH and _S: a user table's stored name (prefix included) up to 64 bytes, 50 from 2.2.0. */
const MAX_STORED_NAME: Record<UserTablePrefix, number> = { _user_: 64, u_: 50 };
/** SYS_TABLE_KEY_FIELD_NAME_MAX_LENGTH and SYS_TABLE_VALUE_FIELD_MAX_LENGTH, in bytes. */
const MAX_FIELD_NAME = 64;
const MAX_VALUE_FIELDS = 1024;
/** What checkNameValidate allows in a table or field name: isalnum (C locale), `$`, `_`, `@`. */
const NAME_CHARS = /^[A-Za-z0-9$_@]*$/;

/**
 * FISCO's getTableName (libprecompiled/Common.cpp): the name a user table is stored under, the
 * user's name behind the prefix of the chain's supported_version (`u_` from 2.2.0, `_user_`
 * before). TableFactory's createTable and openTable and CRUD's insert, update, remove and desc
 * always add it, whatever the name.
 */
export function userTableName(name: string, names: TableNames): string {
  return names.userTable(name);
}

/** CRUD's select: as userTableName, except that `_sys_tables_` is read as it is (SDKs' `desc` selects it by `u_<name>`). */
export function crudSelectTableName(name: string, names: TableNames): string {
  return name === SYS_TABLES ? name : names.userTable(name);
}

/** The system tables the Permission precompile names as they are (PermissionPrecompiled::addPrefixToUserTable). */
const PERMISSION_SYSTEM_TABLES = new Set([SYS_TABLE_ACCESS, SYS_CONSENSUS, SYS_TABLES, SYS_CNS, SYS_CONFIG]);

/** The Permission precompile's table name: a system table's own, else the user table's (userTableName). */
export function permissionTableName(name: string, names: TableNames): string {
  return PERMISSION_SYSTEM_TABLES.has(name) ? name : names.userTable(name);
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

/**
 * FISCO user tables on top of the system tables, by the name they are stored under (see
 * userTableName); every write is permission-checked against tx.origin.
 */
export class UserTables {
  async info(ctx: CallContext, table: string): Promise<TableInfo | undefined> {
    return ctx.tables.tableInfo(table);
  }

  /**
   * createTable(name, key, fields) as FISCO 2.x's TableFactoryPrecompiled does it: the names are
   * checked first, and a name it refuses throws a StorageException (checkNames), a plain exception
   * to FISCO's Executive (status Unknown, its message from 2.3.0), not a code. Then a table that
   * exists is -50001 and an account that may not create tables -50000 (MemoryTableFactory2's
   * createTable looks the name up before it checks the account).
   */
  async create(ctx: CallContext, name: string, keyField: string, valueFields: string): Promise<number> {
    const { key, fields } = checkNames(name, keyField, valueFields, ctx.tableNames);
    const full = ctx.tableNames.userTable(name);
    if (await ctx.tables.tableInfo(full)) return CODE_TABLE_NAME_ALREADY_EXIST;
    if (!(await ctx.tables.mayWrite(SYS_TABLES, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    await ctx.tables.createTable({ name: full, keyField: key, valueFields: fields });
    return CODE_SUCCESS;
  }

  async select(ctx: CallContext, table: string, key: string, query: Query): Promise<Row[] | number> {
    const info = await this.info(ctx, table);
    if (!info) return CODE_TABLE_NOT_EXIST;
    const rows = (await ctx.tables.tables.rows(info.name, key)).filter((r) => rowMatches(r, query.conditions));
    return applyLimit(rows, query.limit);
  }

  async insert(ctx: CallContext, table: string, key: string, entry: Readonly<Record<string, string>>): Promise<number> {
    const info = await this.info(ctx, table);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    checkFields(info, entry);
    // MemoryTable2::insert stores the fields given and the key, nothing else: a field left out is
    // absent from the row (and so from the block's dbHash), not an empty string. It sets the key
    // field to the key argument, so a key field in the entry is overwritten, whatever it says.
    const row: Record<string, string> = { [info.keyField]: key };
    for (const f of info.valueFields) if (entry[f] !== undefined) row[f] = entry[f];
    const rows = await ctx.tables.tables.rows(info.name, key);
    await ctx.tables.tables.setRows(info.name, key, [...rows, row]);
    return 1;
  }

  async update(ctx: CallContext, table: string, key: string, entry: Readonly<Record<string, string>>, query: Query): Promise<number> {
    const info = await this.info(ctx, table);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    checkFields(info, entry);
    // MemoryTable2::update writes every field of the entry but the key field, which it skips
    // (CRUD's update refuses such an entry from 2.7.0 before it gets here: crud-precompile.ts)
    const changes = Object.fromEntries(Object.entries(entry).filter(([field]) => field !== info.keyField));
    const rows = await ctx.tables.tables.rows(info.name, key);
    const targets = new Set(applyLimit(rows.filter((r) => rowMatches(r, query.conditions)), query.limit));
    if (targets.size === 0) return 0;
    await ctx.tables.tables.setRows(info.name, key, rows.map((r) => (targets.has(r) ? { ...r, ...changes } : r)));
    return targets.size;
  }

  async remove(ctx: CallContext, table: string, key: string, query: Query): Promise<number> {
    const info = await this.info(ctx, table);
    if (!info) return CODE_TABLE_NOT_EXIST;
    if (!(await ctx.tables.mayWrite(info.name, ctx.origin, ctx.number))) return CODE_NO_AUTHORIZED;
    const rows = await ctx.tables.tables.rows(info.name, key);
    const targets = new Set(applyLimit(rows.filter((r) => rowMatches(r, query.conditions)), query.limit));
    if (targets.size === 0) return 0;
    await ctx.tables.tables.setRows(info.name, key, rows.filter((r) => !targets.has(r)));
    return targets.size;
  }
}

/** boost::trim: ASCII white space off both ends (String.prototype.trim also takes Unicode spaces). */
function boostTrim(text: string): string {
  return text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A name refused by createTable: FISCO throws a StorageException with this message. */
function refused(message: string): PrecompileFailure {
  return new PrecompileFailure(message, 'exception');
}

/**
 * TableFactoryPrecompiled's checks of createTable's names, in its order: each field name (key
 * and values, trimmed, split on commas) at most 64 bytes; from 2.2.0 checkNameValidate (the table
 * name of letters, digits, `$`, `_` and `@`; each field name of those too, not empty and not
 * starting with `_`; no value field twice or equal to the key); the value fields joined at most
 * 1024 bytes; the stored name at most 64 bytes (`_user_` names) or 50 (`u_` names, from 2.2.0).
 * Before 2.2.0 an empty or repeated field name is stored as it is.
 */
function checkNames(name: string, keyField: string, valueFields: string, names: TableNames): { key: string; fields: string[] } {
  const key = boostTrim(keyField);
  const fields = valueFields.split(',').map(boostTrim);
  if ([key, ...fields].some((f) => bytes(f) > MAX_FIELD_NAME)) throw refused(`table field name length overflow ${MAX_FIELD_NAME}`);
  if (names.validatesNames) {
    if (!NAME_CHARS.test(name)) throw refused(`invalid tablename:${name}`);
    const seen = new Set([key]);
    const checkField = (field: string): void => {
      if (field === '' || field.startsWith('_') || !NAME_CHARS.test(field)) throw refused(`invalid field:${field}`);
    };
    checkField(key);
    for (const field of fields) {
      if (seen.has(field)) throw refused(`dumplicate field:${field}`);
      seen.add(field);
      checkField(field);
    }
  }
  if (bytes(fields.join(',')) > MAX_VALUE_FIELDS) throw refused(`total table field name length overflow ${MAX_VALUE_FIELDS}`);
  // FISCO's message names 64 whichever limit it was
  if (bytes(names.userTable(name)) > MAX_STORED_NAME[names.userTablePrefix]) throw refused(`tableName length overflow ${MAX_STORED_NAME._user_}`);
  return { key, fields };
}

/** FISCO's USER_TABLE_KEY_VALUE_MAX_LENGTH: the bytes a row's key may have. */
export const USER_TABLE_KEY_VALUE_MAX_LENGTH = 255;

/**
 * checkLengthValidate on an insert's key (CRUD's insert before it opens the table, the Table
 * object's insert): a longer key throws a StorageException, which FISCO's Executive reports as a
 * plain exception (status Unknown for a call straight to CRUD).
 */
export function checkKeyLength(key: string): void {
  if (Buffer.byteLength(key, 'utf8') > USER_TABLE_KEY_VALUE_MAX_LENGTH) {
    throw new PrecompileFailure(`size of value/key greater than${USER_TABLE_KEY_VALUE_MAX_LENGTH}`, 'exception');
  }
}

/** What MemoryTable2::checkField throws (a std::invalid_argument) for a field the table does not have. */
export const INVALID_KEY = 'Invalid key.';

/**
 * MemoryTable2::checkField: every field of the entry is one of the table's (its key field
 * included); insert and update rethrow its std::invalid_argument, which FISCO's Executive
 * reports as a plain exception (status Unknown for a call straight to CRUD).
 */
function checkFields(info: TableInfo, entry: Readonly<Record<string, string>>): void {
  for (const field of Object.keys(entry)) {
    if (field !== info.keyField && !info.valueFields.includes(field)) throw new PrecompileFailure(INVALID_KEY, 'exception');
  }
}
