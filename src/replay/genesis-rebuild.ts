// The recording's genesis, rebuilt from block 0's mark, and its field-by-field comparison with
// the recorded block 0.
import { GenesisError, parseGenesisMark, type BlockHeader, type GroupGenesis, type ProtocolVersion } from '../chain/index.js';
import { toQuantity } from '../codec/index.js';
import { hex } from './divergence.js';
import { parseHeader, ReplayInputError, type RecordedHeader } from './recorded-json.js';
import type { RecordingHeader } from './recording.js';

/** The recording's genesis, rebuilt from block 0: its mark, timestamp and the header's version. */
export function rebuildGenesis(header: RecordingHeader, version: ProtocolVersion): { genesis: GroupGenesis; recorded: RecordedHeader; mark: string } {
  const place = { block: 0 };
  const recorded = parseHeader(header.genesis, place, { hashRequired: false });
  if (recorded.number !== 0) throw new ReplayInputError(`header "genesis": block 0 expected, got block ${recorded.number}`);
  const markBytes = recorded.extraData[0];
  if (!markBytes) throw new ReplayInputError('block 0: extraData is empty, so it holds no genesis mark to rebuild the genesis from');
  const mark = new TextDecoder().decode(markBytes);
  let fields;
  try {
    fields = parseGenesisMark(mark, version);
  } catch (e) {
    if (e instanceof GenesisError) throw new ReplayInputError(`block 0: the genesis cannot be rebuilt from its mark at supported version ${version.text}: ${e.message}`);
    throw e;
  }
  if (header.stateType !== undefined && header.stateType !== fields.stateType) {
    throw new ReplayInputError(`header: "stateType" is ${header.stateType} but block 0's genesis mark says ${fields.stateType}`);
  }
  if (header.group !== fields.groupId) throw new ReplayInputError(`header: "group" is ${header.group} but block 0's genesis mark is group ${fields.groupId}`);
  return { genesis: { ...fields, timestamp: recorded.timestamp }, recorded, mark };
}

/** The rebuilt block 0 field by field against the recorded one: the first differing field, or undefined. */
export function genesisDifference(mine: BlockHeader, recorded: RecordedHeader): { field: string; recorded: string; replayed: string } | undefined {
  const pairs: Array<[string, string, string]> = [
    ['extraData[0]', hex(recorded.extraData[0]!), hex(mine.extraData[0]!)],
    ['extraData', String(recorded.extraData.length), String(mine.extraData.length)],
    ['timestamp', toQuantity(recorded.timestamp), toQuantity(mine.timestamp)],
    ['parentHash', hex(recorded.parentHash), hex(mine.parentHash)],
    ['stateRoot', hex(recorded.stateRoot), hex(mine.stateRoot)],
    ['transactionsRoot', hex(recorded.transactionsRoot), hex(mine.transactionsRoot)],
    ['logsBloom', hex(recorded.logsBloom), hex(mine.logsBloom)],
    ['gasLimit', toQuantity(recorded.gasLimit), toQuantity(mine.gasLimit)],
    ['gasUsed', toQuantity(recorded.gasUsed), toQuantity(mine.gasUsed)],
    ['sealer', toQuantity(recorded.sealer), toQuantity(mine.sealer)],
    ['sealerList', recorded.sealerList.map(hex).join(','), mine.sealerList.map(hex).join(',')],
  ];
  if (recorded.receiptsRoot) pairs.push(['receiptsRoot', hex(recorded.receiptsRoot), hex(mine.receiptsRoot)]);
  if (recorded.dbHash) pairs.push(['dbHash', hex(recorded.dbHash), hex(mine.dbHash)]);
  const diff = pairs.find(([, a, b]) => a !== b);
  return diff ? { field: diff[0], recorded: diff[1], replayed: diff[2] } : undefined;
}

