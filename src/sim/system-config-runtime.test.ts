// System config changed at run time through FISCO's SystemConfig precompile (0x1000) takes effect
// in the group from the next block: the consensus timeout and the transaction count limit each
// group reads for its next height.
import { describe, expect, it } from 'vitest';
import { encodeFunctionCall } from '../abi/index.js';
import { fromHex } from '../codec/index.js';
import { keccak256 } from '../crypto/index.js';
import { lan } from './byzantine.test-helper.js';
import { cluster } from './sim-cluster.js';

const SYSTEM_CONFIG = fromHex('0000000000000000000000000000000000001000');

describe('system config at run time', () => {
  it('consensus_timeout and tx_count_limit set through the precompile are what every group uses from the next block', async () => {
    const c = cluster({ seed: 'system-config-runtime', network: lan });
    await c.sim.run({ until: 2_000 });
    expect(c.group('node0')!.next).toMatchObject({ consensusTimeoutMs: 3_000, txCountLimit: 1000 });
    const set = (key: string, value: string) =>
      c.client.build({ to: SYSTEM_CONFIG, data: encodeFunctionCall('setValueByKey(string,string)', [key, value], keccak256), blockLimit: BigInt(c.group('node0')!.blockNumber() + 500) });
    c.sim.at(2_000, async () => {
      expect((await c.submit('node0', set('consensus_timeout', '7').raw))?.accepted).toBe(true);
      expect((await c.submit('node0', set('tx_count_limit', '300').raw))?.accepted).toBe(true);
    });
    await c.sim.run({ until: 6_000 });
    for (const { group } of c.live()) expect(group.next, group.nodeId.slice(0, 8)).toMatchObject({ consensusTimeoutMs: 7_000, txCountLimit: 300 });
  });
});
