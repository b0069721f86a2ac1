import type { SelectorHashes } from './precompile.js';
import {
  code,
  CODE_CONDITION_OPERATION_UNDEFINED,
  CODE_PARSE_CONDITION_ERROR,
  CODE_PARSE_ENTRY_ERROR,
  CODE_TABLE_NOT_EXIST,
  PrecompiledContract,
  WRITE_GAS,
} from './precompile.js';
import { fiscoJson } from './fisco-json.js';
import { UserTables, type Condition, type ConditionOp, type Query } from './user-tables.js';

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
        outputs: 'int256',
        cost: WRITE_GAS,
        run: (ctx, [table, key, entry]) => guarded(() => userTables.insert(ctx, String(table), String(key), parseEntry(String(entry)))),
      },
      {
        signature: 'update(string,string,string,string,string)',
        outputs: 'int256',
        cost: WRITE_GAS,
        run: (ctx, [table, key, entry, cond]) =>
          guarded(() => userTables.update(ctx, String(table), String(key), parseEntry(String(entry)), parseCondition(String(cond)))),
      },
      {
        signature: 'remove(string,string,string,string)',
        outputs: 'int256',
        cost: WRITE_GAS,
        run: (ctx, [table, key, cond]) => guarded(() => userTables.remove(ctx, String(table), String(key), parseCondition(String(cond)))),
      },
      {
        signature: 'select(string,string,string,string)',
        outputs: 'string',
        async run(ctx, [table, key, cond]) {
          let q: Query;
          try {
            q = parseCondition(String(cond));
          } catch (e) {
            if (e instanceof CrudParseError) return [String(e.code)];
            throw e;
          }
          const rows = await userTables.select(ctx, String(table), String(key), q);
          return [typeof rows === 'number' ? String(rows) : fiscoJson(rows)];
        },
      },
      {
        signature: 'desc(string)',
        outputs: 'string,string',
        async run(ctx, [table]) {
          const info = await userTables.info(ctx, String(table));
          return info ? [info.keyField, info.valueFields.join(',')] : [String(CODE_TABLE_NOT_EXIST), ''];
        },
      },
    ],
    hash,
  );
}
