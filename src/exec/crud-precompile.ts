import type { SelectorHashes } from './precompile.js';
import {
  code,
  CODE_CONDITION_OPERATION_UNDEFINED,
  CODE_PARSE_CONDITION_ERROR,
  CODE_PARSE_ENTRY_ERROR,
  CODE_TABLE_NOT_EXIST,
  PrecompiledContract,
  type MethodContext,
} from './precompile.js';
import { fiscoJson } from './fisco-json.js';
import { entryCapacity, type GasOp } from './precompiled-gas.js';
import { crudSelectTableName, userTableName, UserTables, type Condition, type ConditionOp, type Query } from './user-tables.js';

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

/** Entry JSON: `{"field":"value",...}`. */
function parseEntry(text: string): Record<string, string> {
  const obj = parseObject(text, CODE_PARSE_ENTRY_ERROR);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v !== 'string' && typeof v !== 'number') throw new CrudParseError(CODE_PARSE_ENTRY_ERROR);
    out[k] = String(v);
  }
  return out;
}

/** Condition JSON: `{"field":{"eq":"v"},...,"limit":{"limit":"offset,count"}}`. */
function parseCondition(text: string): Query {
  const obj = parseObject(text, CODE_PARSE_CONDITION_ERROR);
  const conditions: Condition[] = [];
  let limit: Query['limit'];
  for (const [field, spec] of Object.entries(obj)) {
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new CrudParseError(CODE_PARSE_CONDITION_ERROR);
    for (const [op, value] of Object.entries(spec as Record<string, unknown>)) {
      if (field === 'limit' && op === 'limit') {
        const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(String(value));
        if (!m) throw new CrudParseError(CODE_PARSE_CONDITION_ERROR);
        limit = { offset: Number(m[1]), count: Number(m[2]) };
        continue;
      }
      if (!(OPS as readonly string[]).includes(op)) throw new CrudParseError(CODE_CONDITION_OPERATION_UNDEFINED);
      conditions.push({ field, op: op as ConditionOp, value: String(value) });
    }
  }
  return limit ? { conditions, limit } : { conditions };
}

/** The condition's operations, each metered as FISCO's CRUD parser appends them. */
function parseMeteredCondition(ctx: MethodContext, text: string): Query {
  const query = parseCondition(text);
  for (const c of query.conditions) ctx.gas.append(c.op.toUpperCase() as GasOp);
  if (query.limit) ctx.gas.append('Limit');
  return query;
}

/** The inserted entry's capacity: its fields and the key field insert sets on it. */
async function insertedCapacity(ctx: MethodContext, table: string, key: string, entry: Record<string, string>): Promise<number> {
  const info = await userTables.info(ctx, table);
  return entryCapacity(Object.entries(info ? { ...entry, [info.keyField]: key } : entry));
}

async function guarded(run: () => Promise<number>): Promise<[bigint]> {
  try {
    return code(await run());
  } catch (e) {
    if (e instanceof CrudParseError) return code(e.code);
    throw e;
  }
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
          ctx.gas.append('OpenTable');
          return guarded(async () => {
            const fields = parseEntry(String(entry));
            const name = userTableName(String(table), ctx.tableNames);
            const count = await userTables.insert(ctx, name, String(key), fields);
            if (count > 0) {
              ctx.gas.updateMemUsed((await insertedCapacity(ctx, name, String(key), fields)) * count);
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
          ctx.gas.append('OpenTable');
          return guarded(async () => {
            const fields = parseEntry(String(entry));
            const count = await userTables.update(ctx, userTableName(String(table), ctx.tableNames), String(key), fields, parseMeteredCondition(ctx, String(cond)));
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
          ctx.gas.append('OpenTable');
          return guarded(async () => {
            const count = await userTables.remove(ctx, userTableName(String(table), ctx.tableNames), String(key), parseMeteredCondition(ctx, String(cond)));
            if (count > 0) ctx.gas.append('Remove', count);
            return count;
          });
        },
      },
      {
        signature: 'select(string,string,string,string)',
        outputs: 'string',
        async run(ctx, [table, key, cond]) {
          ctx.gas.append('OpenTable');
          let q: Query;
          try {
            q = parseMeteredCondition(ctx, String(cond));
          } catch (e) {
            if (e instanceof CrudParseError) return [String(e.code)];
            throw e;
          }
          const rows = await userTables.select(ctx, crudSelectTableName(String(table), ctx.tableNames), String(key), q);
          if (typeof rows === 'number') return [String(rows)];
          ctx.gas.updateMemUsed(rows.reduce((sum, row) => sum + entryCapacity(Object.entries(row)), 0));
          ctx.gas.append('Select', rows.length);
          return [fiscoJson(rows)];
        },
      },
      {
        signature: 'desc(string)',
        outputs: 'string,string',
        async run(ctx, [table]) {
          const info = await userTables.info(ctx, userTableName(String(table), ctx.tableNames));
          ctx.gas.append('OpenTable');
          ctx.gas.append('Select', info ? 1 : 0);
          return info ? [info.keyField, info.valueFields.join(',')] : [String(CODE_TABLE_NOT_EXIST), ''];
        },
      },
    ],
    hash,
    true,
    'unknown-function-code',
  );
}
