import { GENESIS_DEFAULTS, validateGenesis, type GroupGenesis, type ProtocolVersion } from '../chain/index.js';
import type { SystemTableApi } from './system-tables.js';

/**
 * The system tables of a new group (FISCO's genesis build): tx_count_limit, tx_gas_limit and,
 * from 2.6.0, consensus_timeout; the sealers and observers; all in force from block 0.
 */
export async function writeGenesisTables(tables: SystemTableApi, genesis: GroupGenesis, version: ProtocolVersion): Promise<void> {
  validateGenesis(genesis);
  await tables.createSystemTables?.();
  const before = -1; // changes written "at block -1" are in force from block 0
  await tables.setConfig('tx_count_limit', String(genesis.txCountLimit ?? GENESIS_DEFAULTS.txCountLimit), before);
  await tables.setConfig('tx_gas_limit', String(genesis.txGasLimit ?? GENESIS_DEFAULTS.txGasLimit), before);
  if (version.atLeast('2.6.0')) {
    await tables.setConfig('consensus_timeout', String(genesis.consensusTimeout ?? GENESIS_DEFAULTS.consensusTimeout), before);
  }
  await tables.setNodeTypes(
    [...genesis.sealers.map((id) => [id, 'sealer'] as const), ...(genesis.observers ?? []).map((id) => [id, 'observer'] as const)],
    before,
  );
}
