import type { SelectorHashes } from './precompile.js';
import {
  code,
  CODE_ADDRESS_AND_VERSION_EXIST,
  CODE_ADDRESS_INVALID,
  CODE_NO_AUTHORIZED,
  CODE_VERSION_LENGTH_OVERFLOW,
  PrecompiledContract,
  readFiscoAddress,
} from './precompile.js';
import { fiscoJson } from './fisco-json.js';
import { SYS_CNS } from './system-tables.js';
import { checkKeyLength } from './user-tables.js';

/** FISCO 2.x's CNS_VERSION_MAX_LENGTH (libprecompiled/Common.h). */
export const CNS_VERSION_MAX_LENGTH = 128;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** 0x1004: contract name service (name + version → address and ABI). */
export function cnsPrecompile(hash: SelectorHashes): PrecompiledContract {
  return new PrecompiledContract(
    'CNS',
    [
      {
        signature: 'insert(string,string,string,string)',
        outputs: 'code',
        async run(ctx, [name, version, address, abi]) {
          // checkCNSParam first: a name over 255 bytes throws (checkLengthValidate's StorageException)
          checkKeyLength(String(name));
          // FISCO opens the table and reads the name's rows before any other check
          const rows = await ctx.tables.tables.rows(SYS_CNS, String(name));
          ctx.gas.append('OpenTable');
          ctx.gas.append('Select', rows.length);
          // FISCO's order: the version's length, an existing version, the address (checkCNSParam's
          // verdict), and the account last, as MemoryTable2's insert checks it
          if (Buffer.byteLength(String(version), 'utf8') > CNS_VERSION_MAX_LENGTH) return code(CODE_VERSION_LENGTH_OVERFLOW);
          if (rows.some((r) => r.version === String(version))) return code(CODE_ADDRESS_AND_VERSION_EXIST);
          if (readFiscoAddress(String(address)) === undefined) return code(CODE_ADDRESS_INVALID);
          if (!(await ctx.tables.mayWrite(SYS_CNS, ctx.origin, ctx.number))) return code(CODE_NO_AUTHORIZED);
          // stored as written: the row (and so the block's dbHash) holds the caller's text
          const row = { name: String(name), version: String(version), address: String(address), abi: String(abi) };
          await ctx.tables.tables.setRows(SYS_CNS, String(name), [...rows, row]);
          // FISCO reports the entry's field count as its memory (below the input's size)
          ctx.gas.updateMemUsed(Object.keys(row).length);
          ctx.gas.append('Insert');
          return code(1);
        },
      },
      {
        signature: 'selectByName(string)',
        outputs: 'string',
        async run(ctx, [name]) {
          const rows = await ctx.tables.tables.rows(SYS_CNS, String(name));
          ctx.gas.append('OpenTable');
          ctx.gas.append('Set', rows.length);
          return [fiscoJson(rows)];
        },
      },
      {
        signature: 'selectByNameAndVersion(string,string)',
        outputs: 'string',
        async run(ctx, [name, version]) {
          const rows = (await ctx.tables.tables.rows(SYS_CNS, String(name))).filter((r) => r.version === String(version));
          ctx.gas.append('OpenTable');
          ctx.gas.append('EQ');
          ctx.gas.append('Select', rows.length);
          return [fiscoJson(rows)];
        },
      },
      {
        signature: 'getContractAddress(string,string)',
        outputs: 'address',
        async run(ctx, [name, version]) {
          const rows = (await ctx.tables.tables.rows(SYS_CNS, String(name))).filter((r) => r.version === String(version));
          ctx.gas.append('OpenTable');
          ctx.gas.append('Select', rows.length);
          return [readFiscoAddress(rows[0]?.address ?? ZERO_ADDRESS) ?? ZERO_ADDRESS];
        },
      },
    ],
    hash,
    true,
    'empty',
  );
}
