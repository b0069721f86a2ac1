import type { SelectorHashes } from './precompile.js';
import {
  addressText,
  code,
  CODE_ADDRESS_INVALID,
  CODE_NO_AUTHORIZED,
  CODE_TABLE_AND_ADDRESS_EXIST,
  CODE_TABLE_AND_ADDRESS_NOT_EXIST,
  CODE_TABLE_NAME_OVERFLOW,
  PrecompiledContract,
  readFiscoAddress,
  type CallContext,
  type Method,
} from './precompile.js';
import { fiscoJson } from './fisco-json.js';
import { contractTableName, SYS_TABLE_ACCESS } from './system-tables.js';
import { permissionTableName } from './user-tables.js';

/** FISCO's USER_TABLE_NAME_MAX_LENGTH. */
const USER_TABLE_NAME_MAX_LENGTH = 64;

/**
 * PermissionPrecompiled's insert and remove (and grantWrite, revokeWrite), in its order: the row
 * looked up first (-51000 to grant one that exists, -51001 to revoke one that does not), then
 * for a grant the stored name's length and the address; the account's own permission last, as
 * MemoryTable2's insert and remove check it (-50000).
 */
async function setAccess(ctx: CallContext, table: string, rawAddress: unknown, grant: boolean): Promise<[bigint]> {
  const address = addressText(String(rawAddress));
  const pending = await ctx.tables.accessList(table, ctx.number + 1);
  if (grant) {
    if (pending.includes(address)) return code(CODE_TABLE_AND_ADDRESS_EXIST);
    if (Buffer.byteLength(table, 'utf8') > USER_TABLE_NAME_MAX_LENGTH) return code(CODE_TABLE_NAME_OVERFLOW);
    if (readFiscoAddress(address) === undefined) return code(CODE_ADDRESS_INVALID);
  } else if (!pending.includes(address)) {
    return code(CODE_TABLE_AND_ADDRESS_NOT_EXIST);
  }
  if (!(await ctx.tables.mayWrite(SYS_TABLE_ACCESS, ctx.origin, ctx.number))) return code(CODE_NO_AUTHORIZED);
  await ctx.tables.setAccess(table, address, grant, ctx.number);
  return code(1);
}

async function query(ctx: CallContext, table: string): Promise<[string]> {
  const rows = await ctx.tables.accessRows(table, ctx.number + 1);
  return [fiscoJson(rows.map((r) => ({ table_name: table, address: r.address, enable_num: r.enable_num })))];
}

/**
 * 0x1005: who may write which table. An empty list means everyone; deploys are governed by
 * `_sys_tables_`, contract storage by the contract's table (`c_<address>`; before 2.2.0
 * `_contract_data_<address>_`), whose methods (grantWrite, revokeWrite, queryPermission) exist
 * from 2.3.0 (`contractMethods`); before, their selectors are unknown ones.
 */
export function permissionPrecompile(hash: SelectorHashes, contractMethods = true): PrecompiledContract {
  const tableMethods: Method[] = [
    { signature: 'insert(string,string)', outputs: 'code', run: (ctx, [t, a]) => setAccess(ctx, permissionTableName(String(t), ctx.tableNames), a, true) },
    { signature: 'remove(string,string)', outputs: 'code', run: (ctx, [t, a]) => setAccess(ctx, permissionTableName(String(t), ctx.tableNames), a, false) },
    { signature: 'queryByName(string)', outputs: 'string', run: (ctx, [t]) => query(ctx, permissionTableName(String(t), ctx.tableNames)) },
  ];
  const contractTableMethods: Method[] = [
    {
      signature: 'grantWrite(address,address)',
      outputs: 'code',
      run: (ctx, [contract, user]) => setAccess(ctx, contractTableName(String(contract), ctx.tableNames), user, true),
    },
    {
      signature: 'revokeWrite(address,address)',
      outputs: 'code',
      run: (ctx, [contract, user]) => setAccess(ctx, contractTableName(String(contract), ctx.tableNames), user, false),
    },
    { signature: 'queryPermission(address)', outputs: 'string', run: (ctx, [contract]) => query(ctx, contractTableName(String(contract), ctx.tableNames)) },
  ];
  return new PrecompiledContract('Permission', contractMethods ? [...tableMethods, ...contractTableMethods] : tableMethods, hash, false, 'empty');
}
