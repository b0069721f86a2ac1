import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateGenesis, type ConsensusType, type GroupGenesis } from '../chain/index.js';
import { ConfigError, IniFile, readers } from './ini-file.js';
import { fileSystemWords } from '../runtime/files/index.js';

/** One group as its two files describe it: the immutable genesis and the mutable group.N.ini. */
export interface GroupFiles {
  readonly genesis: GroupGenesis;
  /** `[tx_pool] limit`. */
  readonly poolLimit: number;
  /** `[tx_pool] memory_limit`, in bytes. */
  readonly poolMemoryLimit: number;
}

/** Reads every `group.N.genesis` in the group config directory (as FISCO does) with its `group.N.ini`. */
export async function readGroupFiles(configDir: string): Promise<GroupFiles[]> {
  let names: string[];
  try {
    names = await readdir(configDir);
  } catch (error) {
    throw new ConfigError(`${configDir}: cannot read the group config directory: ${fileSystemWords(error as NodeJS.ErrnoException)}`);
  }
  const genesisFiles = names.filter((n) => /^group\.\d+\.genesis$/.test(n)).sort((a, b) => groupNumber(a) - groupNumber(b));
  if (genesisFiles.length === 0) throw new ConfigError(`${configDir}: no group.N.genesis file: a node needs at least one group`);
  const groups: GroupFiles[] = [];
  for (const name of genesisFiles) {
    const genesisPath = path.join(configDir, name);
    const iniPath = path.join(configDir, name.replace(/\.genesis$/, '.ini'));
    const genesisText = await readText(genesisPath);
    const iniText = await readText(iniPath, '');
    groups.push(parseGroupFiles(genesisText, genesisPath, iniText, iniPath, groupNumber(name)));
  }
  return groups;
}

function groupNumber(name: string): number {
  return Number(/^group\.(\d+)\./.exec(name)![1]);
}

async function readText(file: string, fallback?: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (fallback !== undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new ConfigError(`${file}: cannot read: ${fileSystemWords(error as NodeJS.ErrnoException)}`);
  }
}

export function parseGroupFiles(genesisText: string, genesisFile: string, iniText: string, iniFile: string, fileGroup: number): GroupFiles {
  const g = IniFile.parse(genesisText, genesisFile);
  const groupId = g.get('group', 'id', readers.integer(1, 32767));
  if (groupId !== fileGroup) throw g.error(g.entry('group', 'id')!, `is ${groupId} but the file is for group ${fileGroup}`);
  const consensusType = g.get('consensus', 'consensus_type', readers.oneOf<ConsensusType>(['pbft', 'raft']), 'pbft');
  const sealers: string[] = [];
  for (const entry of g.entriesMatching('consensus', /^node\./)) {
    const id = readers.nodeId(entry.value);
    if (typeof id !== 'string') throw g.error(entry, id.problem);
    if (sealers.includes(id)) throw g.error(entry, 'node id listed twice');
    sealers.push(id);
  }
  if (sealers.length === 0) throw new ConfigError(`${genesisFile}: [consensus] node.0: missing: a group needs at least one sealer`);
  const minElectTime = g.get('consensus', 'min_elect_time', readers.integer(4, 3_600_000), 1000);
  const genesis: GroupGenesis = {
    groupId,
    consensusType,
    sealers,
    txCountLimit: g.get('consensus', 'max_trans_num', readers.integer(1, 2 ** 31 - 1), 1000),
    consensusTimeout: g.get('consensus', 'consensus_timeout', readers.integer(3, 4_294_967), 3),
    txGasLimit: BigInt(g.get('tx', 'gas_limit', readers.integer(100_000, Number.MAX_SAFE_INTEGER), 300_000_000)),
    timestamp: g.get('group', 'timestamp', readers.integer(0, Number.MAX_SAFE_INTEGER)),
    stateType: g.get('state', 'type', readers.oneOf(['storage', 'mpt'] as const), 'storage'),
    minElectTime,
    maxElectTime: g.get('consensus', 'max_elect_time', readers.integer(minElectTime, 3_600_000), Math.max(minElectTime, 2000)),
  };
  try {
    validateGenesis(genesis);
  } catch (error) {
    throw new ConfigError(`${genesisFile}: ${(error as Error).message}`);
  }
  const ini = IniFile.parse(iniText, iniFile);
  return {
    genesis,
    poolLimit: ini.get('tx_pool', 'limit', readers.integer(1, 10_000_000), 150_000),
    poolMemoryLimit: ini.get('tx_pool', 'memory_limit', readers.integer(1, 1_000_000), 512) * 1024 * 1024,
  };
}
