import {
  decodeTransaction,
  recoverSender,
  transactionToJson,
  TxDecodeError,
  type TxGeneration,
} from '../chain/index.js';
import { CodecError, parseHexBytes, rlpDecode, type RlpValue } from '../codec/index.js';
import { getSuite, type SuiteName } from '../crypto/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { oneOf, parseOptions } from './parse-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    suite: { type: 'string' },
    generation: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`expected exactly one hex payload, got ${positionals.length}`);
  const suiteOption = oneOf(values.suite, ['ecdsa', 'sm'] as const, 'suite');
  const generationOption = oneOf(values.generation, ['rc1', 'rc2'] as const, 'generation');

  let raw: Uint8Array;
  try {
    raw = parseHexBytes(positionals[0]!.trim(), 'payload', { prefix: 'optional' });
  } catch (e) {
    throw new CliError(`BadRLP: ${e instanceof CodecError ? e.message : String(e)}`);
  }
  if (raw.length === 0) throw new CliError('BadRLP: empty payload');

  const detected = detect(raw);
  const suiteName: SuiteName = suiteOption ?? detected.suite;
  const generation: TxGeneration = generationOption ?? detected.generation;
  const suite = getSuite(suiteName);
  try {
    const tx = decodeTransaction(raw, { suite, generation });
    recoverSender(tx, suite);
    io.out(JSON.stringify(transactionToJson(tx), null, 2));
    return 0;
  } catch (e) {
    if (e instanceof TxDecodeError) throw new CliError(e.message);
    throw e;
  }
}

/** Best guess from the payload's shape; explicit options override it. */
function detect(raw: Uint8Array): { suite: SuiteName; generation: TxGeneration } {
  let items: RlpValue;
  try {
    items = rlpDecode(raw);
  } catch {
    return { suite: 'ecdsa', generation: 'rc2' }; // decoding will report the RLP error
  }
  if (!Array.isArray(items)) return { suite: 'ecdsa', generation: 'rc2' };
  const generation: TxGeneration = items.length === 10 ? 'rc1' : 'rc2';
  const v = items[items.length - 3];
  const suite: SuiteName = v instanceof Uint8Array && v.length === 64 ? 'sm' : 'ecdsa';
  return { suite, generation };
}
