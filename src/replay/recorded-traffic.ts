// A recording read as traffic to send again: every recorded transaction re-encoded to the signed
// bytes the original node accepted (from its JSON fields, through the chain codec; nothing is
// re-signed), with its block's timestamp and the recorded receipt's status and output. Plain
// data (no class instances), so a scenario carrying it can go to a worker thread.
import { decodeTransaction, encodeSignedTransaction, ProtocolVersion, TxDecodeError } from '../chain/index.js';
import { toHexNoPrefix } from '../codec/index.js';
import { getSuite } from '../crypto/index.js';
import { numberOf, parseReceipt, parseTransaction, ReplayInputError, transactionObjects } from './recorded-json.js';
import { RecordingError, RecordingReader, unsupportedVersion } from './recording.js';

export interface TrafficTransaction {
  /** 0x-prefixed lower-case hash, as recorded (and as the re-encoded bytes hash). */
  readonly hash: string;
  /** The signed transaction, hex without 0x. */
  readonly raw: string;
  /** 0x-prefixed sender as recorded. */
  readonly from: string;
  readonly block: number;
  readonly index: number;
  /** The recording's line holding the transaction's block. */
  readonly line: number;
  readonly blockLimit: bigint;
  /** rc2 transactions only. */
  readonly chainId?: bigint;
  readonly groupId?: bigint;
  /** The recorded receipt. */
  readonly status: bigint;
  readonly output: string;
}

export interface TrafficBlock {
  readonly number: number;
  /** The block's timestamp (ms) as recorded. */
  readonly timestamp: number;
  readonly transactions: readonly TrafficTransaction[];
}

export interface RecordedTraffic {
  readonly file: string;
  readonly group: number;
  readonly supportedVersion: string;
  readonly suite: 'ecdsa' | 'sm';
  readonly stateType?: 'storage' | 'mpt';
  readonly txGasLimit?: string;
  readonly chainId: string;
  /** Only blocks with transactions. */
  readonly blocks: readonly TrafficBlock[];
  readonly transactions: number;
}

/**
 * Reads a recording's transactions for submission. A problem is a RecordingError naming the
 * recording's file:line: a bad line, a transaction that does not re-encode to its recorded hash,
 * or one recorded without its signed fields (the earlier interface variant), which no node would
 * take again.
 */
export async function readRecordedTraffic(file: string): Promise<RecordedTraffic> {
  const reader = await RecordingReader.open(file);
  const { header } = reader;
  let version: ProtocolVersion;
  try {
    version = ProtocolVersion.parse(header.supportedVersion);
  } catch (e) {
    throw new RecordingError(file, 1, unsupportedVersion(header.supportedVersion, e));
  }
  const suite = getSuite(header.suite);
  const generation = version.txGeneration;
  const blocks: TrafficBlock[] = [];
  let count = 0;
  for await (const recorded of reader.blocks()) {
    const line = reader.line;
    const number = recorded.number;
    const place = { block: number };
    try {
      const txJson = transactionObjects(recorded.block, place);
      if (txJson.length === 0) continue;
      if (recorded.receipts.length !== txJson.length) throw new ReplayInputError(`block ${number}: ${txJson.length} transactions but ${recorded.receipts.length} receipts were recorded`);
      const timestamp = numberOf(recorded.block, 'timestamp', place);
      const transactions = txJson.map((json, index): TrafficTransaction => {
        const at = { block: number, index };
        const t = parseTransaction(json, at, suite, generation);
        if (!t.body || !t.signature) {
          throw new ReplayInputError(
            header.interfaceVariant === 'earlier'
              ? `block ${number}, transaction ${index}: recorded from the earlier interface variant (${header.supportedVersion}), which prints no ${t.missing.join(', ')}: the signed transaction cannot be rebuilt, so it cannot be submitted again`
              : `block ${number}, transaction ${index}: recorded without ${t.missing.join(', ')}: the signed transaction cannot be rebuilt, so it cannot be submitted again`,
          );
        }
        let raw: Uint8Array;
        let hash: string;
        try {
          raw = encodeSignedTransaction(t.body, generation, t.signature);
          hash = toHexNoPrefix(decodeTransaction(raw, { suite, generation }).hash);
        } catch (e) {
          if (e instanceof TxDecodeError) throw new ReplayInputError(`block ${number}, transaction ${index}: its recorded fields do not make a valid transaction: ${e.message}`);
          throw e;
        }
        const recordedHash = toHexNoPrefix(t.hash);
        if (hash !== recordedHash) throw new ReplayInputError(`block ${number}, transaction ${index}: re-encoded from its fields it hashes to 0x${hash}, not to the recorded 0x${recordedHash}`);
        const receipt = parseReceipt(recorded.receipts[index]!, at);
        if (receipt.transactionHash !== `0x${recordedHash}`) throw new ReplayInputError(`block ${number}, receipt ${index}: is for ${receipt.transactionHash}, not for transaction 0x${recordedHash}`);
        return {
          hash: `0x${hash}`,
          raw: toHexNoPrefix(raw),
          from: `0x${toHexNoPrefix(t.from)}`,
          block: number,
          index,
          line,
          blockLimit: t.body.blockLimit,
          ...(t.body.chainId !== undefined ? { chainId: t.body.chainId } : {}),
          ...(t.body.groupId !== undefined ? { groupId: t.body.groupId } : {}),
          status: receipt.status,
          output: receipt.output,
        };
      });
      count += transactions.length;
      blocks.push({ number, timestamp, transactions });
    } catch (e) {
      if (e instanceof ReplayInputError) throw new RecordingError(file, line, e.message);
      throw e;
    }
  }
  return {
    file,
    group: header.group,
    supportedVersion: header.supportedVersion,
    suite: header.suite,
    ...(header.stateType ? { stateType: header.stateType } : {}),
    ...(header.config.txGasLimit !== undefined ? { txGasLimit: header.config.txGasLimit } : {}),
    chainId: header.chainId,
    blocks,
    transactions: count,
  };
}
