/**
 * FISCO 2.x PrecompiledGas (libprecompiled/PrecompiledGas.{h,cpp}, GasMetrics without
 * enable_free_storage): a precompiled call's gas is the cost of the basic operations it appended
 * plus a memory cost over the largest memory size it reported, its output included.
 */
export type GasOp =
  | 'EQ'
  | 'GE'
  | 'GT'
  | 'LE'
  | 'LT'
  | 'NE'
  | 'Limit'
  | 'GetInt'
  | 'GetAddr'
  | 'Set'
  | 'GetByte32'
  | 'GetByte64'
  | 'GetString'
  | 'CreateTable'
  | 'OpenTable'
  | 'Select'
  | 'Insert'
  | 'Update'
  | 'Remove';

const VERY_LOW = 3;

export const OP_GAS: Readonly<Record<GasOp, number>> = {
  EQ: VERY_LOW,
  GE: VERY_LOW,
  GT: VERY_LOW,
  LE: VERY_LOW,
  LT: VERY_LOW,
  NE: VERY_LOW,
  Limit: VERY_LOW,
  GetInt: VERY_LOW,
  GetAddr: VERY_LOW,
  Set: VERY_LOW,
  GetByte32: 32 * VERY_LOW,
  GetByte64: 64 * VERY_LOW,
  GetString: VERY_LOW,
  CreateTable: 16_000,
  OpenTable: 200,
  Select: 200,
  Insert: 10_000,
  Update: 10_000,
  Remove: 2_500,
};

const MEM_GAS = 3;
const MEM_UNIT = 32;

/** 3 per 32-byte word plus words²/512; nothing for no memory. */
export function memoryGas(bytes: number): number {
  const words = Math.ceil(bytes / MEM_UNIT);
  return MEM_GAS * words + Math.floor((words * words) / 512);
}

/** One precompiled call's meter. */
export class PrecompiledGas {
  private computation = 0;
  private memUsed = 0;

  append(op: GasOp, count = 1): void {
    this.computation += OP_GAS[op] * count;
  }

  /** Overwrites the memory size (FISCO's setMemUsed: the input size, and Table.update's entry size). */
  setMemUsed(bytes: number): void {
    this.memUsed = bytes;
  }

  updateMemUsed(bytes: number): void {
    if (bytes > this.memUsed) this.memUsed = bytes;
  }

  /** PrecompiledExecResult::calGasCost: the output counts as memory too. */
  total(outputSize: number): number {
    this.updateMemUsed(outputSize);
    return this.computation + memoryGas(this.memUsed);
  }
}

const utf8 = new TextEncoder();

/** Entry::capacity(): the bytes of each field's name and value, as setField counts them. */
export function entryCapacity(fields: Iterable<readonly [string, string]>): number {
  let size = 0;
  for (const [name, value] of fields) size += utf8.encode(name).length + utf8.encode(value).length;
  return size;
}
