import type { SelectorHashes } from './precompile.js';
import {
  code,
  CODE_CONDITION_OPERATION_UNDEFINED,
  CODE_INVALID_UPDATE_TABLE_KEY,
  CODE_PARSE_CONDITION_ERROR,
  CODE_PARSE_ENTRY_ERROR,
  CODE_TABLE_NOT_EXIST,
  EncodedOutput,
  PrecompiledContract,
  type MethodContext,
} from './precompile.js';
import { fiscoStyledJson, jsoncppNameOrder } from './fisco-json.js';
import { entryCapacity, type GasOp } from './precompiled-gas.js';
import { checkKeyLength, crudSelectTableName, userTableName, UserTables, type Condition, type ConditionOp, type Query } from './user-tables.js';
import type { TableInfo } from './system-tables.js';
import { encodeAbi } from '../abi/index.js';

const userTables = new UserTables();
const OPS: readonly ConditionOp[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];

class CrudParseError extends Error {
  constructor(readonly code: number) {
    super(String(code));
  }
}

function parseObject(text: string, errorCode: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new CrudParseError(errorCode);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CrudParseError(errorCode);
  return value as Record<string, unknown>;
}

/**
 * A field's text as jsoncpp's asString gives it: a string as it is, a number as its text, true
 * and false as words, null as empty; an array or an object has none (errorCode here).
 */
function fieldText(value: unknown, errorCode: number): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  throw new CrudParseError(errorCode);
}

/** Entry JSON: `{"field":"value",...}`. */
function parseEntry(text: string): Record<string, string> {
  const obj = parseObject(text, CODE_PARSE_ENTRY_ERROR);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = fieldText(v, CODE_PARSE_ENTRY_ERROR);
  return out;
}

/** FISCO's isHashField: a name that neither starts nor ends with `_`, or `_status_`; the condition parser skips any other. */
function isHashField(name: string): boolean {
  return name !== '' && ((!name.startsWith('_') && !name.endsWith('_')) || name === '_status_');
}

/**
 * Condition JSON: `{"field":{"eq":"v"},...,"limit":{"limit":"offset,count"}}`, read as FISCO's
 * CRUDPrecompiled::parseCondition reads it: members in jsoncpp's (sorted) order, fields that are not
 * hash fields skipped, each operation metered as it is read (so one read before an undefined
 * operation is paid for), and `limit` as an operation of any field.
 */
function parseMeteredCondition(ctx: MethodContext, text: string): Query {
  const obj = parseObject(text, CODE_PARSE_CONDITION_ERROR);
  const conditions: Condition[] = [];
  let limit: Query['limit'];
  for (const field of Object.keys(obj).sort(jsoncppNameOrder)) {
    if (!isHashField(field)) continue;
    const spec = obj[field];
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new CrudParseError(CODE_PARSE_CONDITION_ERROR);
    const ops = spec as Record<string, unknown>;
    for (const op of Object.keys(ops).sort(jsoncppNameOrder)) {
      const value = ops[op];
      if (op === 'limit') {
        const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(fieldText(value, CODE_PARSE_CONDITION_ERROR));
        if (!m) throw new CrudParseError(CODE_PARSE_CONDITION_ERROR);
        limit = { offset: Number(m[1]), count: Number(m[2]) };
        ctx.gas.append('Limit');
        continue;
      }
      if (!(OPS as readonly string[]).includes(op)) throw new CrudParseError(CODE_CONDITION_OPERATION_UNDEFINED);
      conditions.push({ field, op: op as ConditionOp, value: fieldText(value, CODE_PARSE_CONDITION_ERROR) });
      ctx.gas.append(op.toUpperCase() as GasOp);
    }
  }
  return limit ? { conditions, limit } : { conditions };
}

/** The inserted entry's capacity: its fields and the key field insert sets on it. */
function insertedCapacity(info: TableInfo, key: string, entry: Record<string, string>): number {
  return entryCapacity(Object.entries({ ...entry, [info.keyField]: key }));
}

/** A code written as CRUDPrecompiled's select writes it: abiIn of u256(code), an int256 word in every version. */
function codeWord(value: number): EncodedOutput {
  return new EncodedOutput(encodeAbi('int256', [BigInt(value)]));
}

async function guarded(run: () => Promise<number>): Promise<[bigint]> {
  try {
    return code(await run());
  } catch (e) {
    if (e instanceof CrudParseError) return code(e.code);
    throw e;
  }
}

/**
 * The table a CRUD method names, opened as FISCO's CRUDPrecompiled opens it first of all (one
 * OpenTable): a missing table is answered with -50100 before the entry or the condition is read,
 * so neither their parse errors nor the condition's gas come into it.
 */
async function openTable(ctx: MethodContext, name: string): Promise<TableInfo | undefined> {
  ctx.gas.append('OpenTable');
  return userTables.info(ctx, name);
}

/** 0x1002: the string-based table API (entries and conditions as JSON text). */
export function crudPrecompile(hash: SelectorHashes): PrecompiledContract {
  return new PrecompiledContract(
    'CRUD',
    [
      {
        signature: 'insert(string,string,string,string)',
        outputs: 'code',
        run(ctx, [table, key, entry]) {
          return guarded(async () => {
            checkKeyLength(String(key));
            const name = userTableName(String(table), ctx.tableNames);
            const info = await openTable(ctx, name);
            if (!info) return CODE_TABLE_NOT_EXIST;
            const fields = parseEntry(String(entry));
            const count = await userTables.insert(ctx, name, String(key), fields);
            if (count > 0) {
              ctx.gas.updateMemUsed(insertedCapacity(info, String(key), fields) * count);
              ctx.gas.append('Insert', count);
            }
            return count;
          });
        },
      },
      {
        signature: 'update(string,string,string,string,string)',
        outputs: 'code',
        run(ctx, [table, key, entry, cond]) {
          return guarded(async () => {
            const name = userTableName(String(table), ctx.tableNames);
            const info = await openTable(ctx, name);
            if (!info) return CODE_TABLE_NOT_EXIST;
            const fields = parseEntry(String(entry));
            if (ctx.crudRefusesKeyUpdate && Object.hasOwn(fields, info.keyField)) return CODE_INVALID_UPDATE_TABLE_KEY;
            const count = await userTables.update(ctx, name, String(key), fields, parseMeteredCondition(ctx, String(cond)));
            if (count > 0) {
              ctx.gas.setMemUsed(entryCapacity(Object.entries(fields)) * count);
              ctx.gas.append('Update', count);
            }
            return count;
          });
        },
      },
      {
        signature: 'remove(string,string,string,string)',
        outputs: 'code',
        run(ctx, [table, key, cond]) {
          return guarded(async () => {
            const name = userTableName(String(table), ctx.tableNames);
            if (!(await openTable(ctx, name))) return CODE_TABLE_NOT_EXIST;
            const count = await userTables.remove(ctx, name, String(key), parseMeteredCondition(ctx, String(cond)));
            if (count > 0) ctx.gas.append('Remove', count);
            return count;
          });
        },
      },
      {
        // a missing table or a condition it cannot read is answered with the code as a word
        // (FISCO's abiIn of a u256), not as text
        signature: 'select(string,string,string,string)',
        outputs: 'string',
        async run(ctx, [table, key, cond]) {
          const name = crudSelectTableName(String(table), ctx.tableNames);
          if (!(await openTable(ctx, name))) return codeWord(CODE_TABLE_NOT_EXIST);
          let q: Query;
          try {
            q = parseMeteredCondition(ctx, String(cond));
          } catch (e) {
            if (e instanceof CrudParseError) return codeWord(e.code);
            throw e;
          }
          const rows = await userTables.select(ctx, name, String(key), q);
          if (typeof rows === 'number') return codeWord(rows);
          ctx.gas.updateMemUsed(rows.reduce((sum, row) => sum + entryCapacity(Object.entries(row)), 0));
          ctx.gas.append('Select', rows.length);
          return [fiscoStyledJson(rows)];
        },
      },
      {
        signature: 'desc(string)',
        outputs: 'string,string',
        async run(ctx, [table]) {
          const info = await userTables.info(ctx, userTableName(String(table), ctx.tableNames));
          ctx.gas.append('OpenTable');
          ctx.gas.append('Select', info ? 1 : 0);
          // a table that does not exist: two empty strings, no code (FISCO only logs it)
          return info ? [info.keyField, info.valueFields.join(',')] : ['', ''];
        },
      },
    ],
    hash,
    true,
    'unknown-function-code',
  );
}
