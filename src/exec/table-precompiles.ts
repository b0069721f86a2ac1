import { Address } from '@ethereumjs/util';
import { fromHex, toHex } from '../codec/index.js';
import {
  addressText,
  code,
  CODE_SUCCESS,
  CODE_TABLE_NAME_ALREADY_EXIST,
  PrecompiledContract,
  PrecompileFailure,
  readFiscoAddress,
  type CallContext,
  type Method,
  type SelectorHashes,
} from './precompile.js';
import { entryCapacity, type GasOp } from './precompiled-gas.js';
import type { TableObject } from './table-objects.js';
import { checkKeyLength, userTableName, UserTables, type ConditionOp, type Query } from './user-tables.js';

const ZERO = new Address(new Uint8Array(20));
const userTables = new UserTables();

type Of<K extends TableObject['kind']> = Extract<TableObject, { kind: K }>;

function object<K extends TableObject['kind']>(ctx: CallContext, raw: unknown, kind: K, what: string): Of<K> {
  const obj = ctx.objects.get(new Address(fromHex(String(raw))));
  if (!obj || obj.kind !== kind) throw new PrecompileFailure(`${what}: ${String(raw)} is not a ${kind} object of this transaction`);
  return obj as Of<K>;
}

function query(ctx: CallContext, raw: unknown, what: string): Query {
  const cond = object(ctx, raw, 'condition', what);
  return cond.limit ? { conditions: cond.conditions, limit: cond.limit } : { conditions: cond.conditions };
}

function entryFields(ctx: CallContext, raw: unknown, what: string): Record<string, string> {
  return Object.fromEntries(object(ctx, raw, 'entry', what).fields);
}

function countOf(value: number | unknown[]): number {
  if (typeof value !== 'number') throw new Error('expected a count or code');
  return value;
}

/** 0x1001: `createTable` and `openTable`, FISCO's object-style table API. */
export function tableFactoryPrecompile(hash: SelectorHashes): PrecompiledContract {
  return new PrecompiledContract(
    'TableFactory',
    [
      {
        signature: 'createTable(string,string,string)',
        outputs: 'code',
        async run(ctx, [name, key, fields]) {
          const result = await userTables.create(ctx, String(name), String(key), String(fields));
          if (result === CODE_SUCCESS) ctx.gas.append('CreateTable');
          // 2.0.0-rc1 answered 1 for a table created and 0 for one that already existed
          if (ctx.returnCodes === 'rc1' && (result === CODE_SUCCESS || result === CODE_TABLE_NAME_ALREADY_EXIST)) return code(result === CODE_SUCCESS ? 1 : 0);
          return code(result);
        },
      },
      {
        signature: 'openTable(string)',
        outputs: 'address',
        async run(ctx, [name]) {
          const table = userTableName(String(name), ctx.tableNames);
          const info = await userTables.info(ctx, table);
          ctx.gas.append('OpenTable');
          return [info ? ctx.objects.register({ kind: 'table', name: table }).toString() : ZERO.toString()];
        },
      },
    ],
    hash,
    true,
    'empty',
  );
}

const tableMethods: Method<Of<'table'>>[] = [
  {
    signature: 'select(string,address)',
    outputs: 'address',
    async run(ctx, [key, cond], self) {
      const rows = await userTables.select(ctx, self.name, String(key), query(ctx, cond, 'Table.select'));
      if (typeof rows === 'number') throw new PrecompileFailure(`Table.select: table ${self.name} does not exist`);
      ctx.gas.updateMemUsed(rows.reduce((sum, row) => sum + entryCapacity(Object.entries(row)), 0));
      ctx.gas.append('Select', rows.length);
      const entries = rows.map((row) => ctx.objects.register({ kind: 'entry', fields: new Map(Object.entries(row)) }));
      return [ctx.objects.register({ kind: 'entries', entries }).toString()];
    },
  },
  {
    signature: 'insert(string,address)',
    outputs: 'int256',
    async run(ctx, [key, entry], self) {
      const fields = entryFields(ctx, entry, 'Table.insert');
      checkKeyLength(String(key));
      const count = countOf(await userTables.insert(ctx, self.name, String(key), fields));
      if (count > 0) {
        // insert sets the key field on the entry before FISCO measures it
        const info = await userTables.info(ctx, self.name);
        ctx.gas.updateMemUsed(entryCapacity(Object.entries(info ? { ...fields, [info.keyField]: String(key) } : fields)) * count);
        ctx.gas.append('Insert', count);
      }
      return code(count);
    },
  },
  {
    signature: 'update(string,address,address)',
    outputs: 'int256',
    async run(ctx, [key, entry, cond], self) {
      const fields = entryFields(ctx, entry, 'Table.update');
      const count = countOf(await userTables.update(ctx, self.name, String(key), fields, query(ctx, cond, 'Table.update')));
      if (count > 0) {
        // FISCO sets (not raises) the memory here, dropping the input's size
        ctx.gas.setMemUsed(entryCapacity(Object.entries(fields)) * count);
        ctx.gas.append('Update', count);
      }
      return code(count);
    },
  },
  {
    signature: 'remove(string,address)',
    outputs: 'int256',
    async run(ctx, [key, cond], self) {
      const count = countOf(await userTables.remove(ctx, self.name, String(key), query(ctx, cond, 'Table.remove')));
      if (count > 0) ctx.gas.append('Remove', count);
      return code(count);
    },
  },
  { signature: 'newEntry()', outputs: 'address', run: (ctx) => [ctx.objects.register({ kind: 'entry', fields: new Map() }).toString()] },
  { signature: 'newCondition()', outputs: 'address', run: (ctx) => [ctx.objects.register({ kind: 'condition', conditions: [] }).toString()] },
];

function field(self: Of<'entry'>, name: unknown): string {
  return self.fields.get(String(name)) ?? '';
}

/**
 * What boost::bad_lexical_cast says: EntryPrecompiled reads getInt and getUInt with
 * lexical_cast, and a field that is not a number, or is missing (getField gives ""), throws it.
 */
export const BAD_LEXICAL_CAST = 'bad lexical cast: source type value could not be interpreted as target';

/** What FISCO's BadHexCharacter says: DEV_SIMPLE_EXCEPTION gives it no message, so what() is std::exception's. */
export const BAD_HEX_CHARACTER = 'std::exception';

function asInt(value: string): bigint {
  if (!/^-?\d+$/.test(value)) throw new PrecompileFailure(BAD_LEXICAL_CAST, 'exception');
  return BigInt(value);
}

function fixedBytes(value: string, width: number): Uint8Array {
  const bytes = new TextEncoder().encode(value).subarray(0, width);
  const out = new Uint8Array(width);
  out.set(bytes);
  return out;
}

/** A method that appends one FISCO operation to its meter. */
function metered<Self>(op: GasOp, method: Method<Self>): Method<Self> {
  return {
    ...method,
    async run(ctx, args, self) {
      const values = await method.run(ctx, args, self);
      ctx.gas.append(op);
      return values;
    },
  };
}

const entryMethods: Method<Of<'entry'>>[] = [
  metered('GetInt', { signature: 'getInt(string)', outputs: 'int256', run: (_c, [f], self) => [asInt(field(self, f))] }),
  metered('GetInt', {
    signature: 'getUInt(string)',
    outputs: 'uint256',
    run(_c, [f], self) {
      const n = asInt(field(self, f));
      if (n < 0n) throw new PrecompileFailure(`Entry.getUInt: ${n} is negative`);
      return [n];
    },
  }),
  metered('GetAddr', {
    signature: 'getAddress(string)',
    outputs: 'address',
    // EntryPrecompiled reads the field with Address(string): a character fromHex cannot read
    // throws BadHexCharacter, whose what() FISCO leaves as std::exception's own
    run(_c, [f], self) {
      const address = readFiscoAddress(field(self, f));
      if (address === undefined) throw new PrecompileFailure(BAD_HEX_CHARACTER, 'exception');
      return [address];
    },
  }),
  metered('GetByte64', {
    signature: 'getBytes64(string)',
    // FISCO answers two bytes32 (64 bytes), not the 2048 bytes an ABI bytes1[64] would take
    outputs: 'bytes32,bytes32',
    run: (_c, [f], self) => {
      const bytes = fixedBytes(field(self, f), 64);
      return [toHex(bytes.subarray(0, 32)), toHex(bytes.subarray(32))];
    },
  }),
  metered('GetByte32', {
    signature: 'getBytes32(string)',
    outputs: 'bytes32',
    run: (_c, [f], self) => [`0x${Buffer.from(fixedBytes(field(self, f), 32)).toString('hex')}`],
  }),
  metered('GetString', { signature: 'getString(string)', outputs: 'string', run: (_c, [f], self) => [field(self, f)] }),
  ...(['int256', 'uint256', 'string', 'address'] as const).map((type) =>
    metered<Of<'entry'>>('Set', {
      signature: `set(string,${type})`,
      outputs: '',
      run(_c, [f, v], self) {
        // EntryPrecompiled stores an address as toHex(value): 40 lower-case hex digits, no 0x
        self.fields.set(String(f), type === 'address' ? addressText(String(v)).slice(2) : String(v));
        return [];
      },
    }),
  ),
];

const entriesMethods: Method<Of<'entries'>>[] = [
  {
    signature: 'get(int256)',
    outputs: 'address',
    run(_c, [i], self) {
      const index = Number(i);
      const entry = self.entries[index];
      if (!entry) throw new PrecompileFailure(`Entries.get: index ${String(i)} out of range (size ${self.entries.length})`);
      return [entry.toString()];
    },
  },
  { signature: 'size()', outputs: 'int256', run: (_c, _a, self) => [BigInt(self.entries.length)] },
];

const conditionMethods: Method<Of<'condition'>>[] = [
  ...(['EQ', 'NE', 'GT', 'GE', 'LT', 'LE'] as const).flatMap((op) =>
    (op === 'EQ' || op === 'NE' ? (['int256', 'string', 'address'] as const) : (['int256'] as const)).map((type) =>
      metered<Of<'condition'>>(op, {
        signature: `${op}(string,${type})`,
        outputs: '',
        run(_c, [f, v], self) {
          // ConditionPrecompiled compares an address as value.hex(), the form Entry.set stores
          self.conditions.push({ field: String(f), op: op.toLowerCase() as ConditionOp, value: type === 'address' ? addressText(String(v)).slice(2) : String(v) });
          return [];
        },
      }),
    ),
  ),
  metered('Limit', {
    signature: 'limit(int256)',
    outputs: '',
    run(_c, [count], self) {
      self.limit = { offset: 0, count: nonNegative(count, 'Condition.limit') };
      return [];
    },
  }),
  metered('Limit', {
    signature: 'limit(int256,int256)',
    outputs: '',
    run(_c, [offset, count], self) {
      self.limit = { offset: nonNegative(offset, 'Condition.limit'), count: nonNegative(count, 'Condition.limit') };
      return [];
    },
  }),
];

function nonNegative(value: unknown, what: string): number {
  const n = BigInt(value as bigint);
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new PrecompileFailure(`${what}: ${n} is not a valid count`);
  return Number(n);
}

/** The contracts behind Table API objects, by kind. */
export function tableObjectContracts(hash: SelectorHashes) {
  return {
    table: new PrecompiledContract('Table', tableMethods, hash, true, 'empty'),
    entry: new PrecompiledContract('Entry', entryMethods, hash, true, 'empty'),
    entries: new PrecompiledContract('Entries', entriesMethods, hash, true, 'empty'),
    condition: new PrecompiledContract('Condition', conditionMethods, hash, true, 'empty'),
  };
}

