import { describe, expect, it } from 'vitest';
import { cluster } from '../sim-cluster.js';
import { InvariantMonitor, type ProtocolViolation } from './invariant-monitor.js';

describe('sync-honest-peer', () => {
  it('a block refused by sync is a violation when an honest peer served it, not when a byzantine one did', () => {
    const c = cluster({ seed: 'sync-honest-peer' });
    const found: ProtocolViolation[] = [];
    const monitor = new InvariantMonitor({ chain: c.chain, isHonest: (n) => n !== 'node3', report: (v) => found.push(v) });
    const refused = (by: string, peer: string) => monitor.onNodeEvent(by, 'sync-block-rejected', { group: 1, number: 7, peer: c.chain.idOf(peer), reason: 'its parent is not our head' }, 1234);
    refused('node0', 'node3');
    refused('node3', 'node1');
    expect(found).toEqual([]);
    refused('node0', 'node1');
    expect(found).toEqual([
      {
        atMs: 1234,
        group: 1,
        height: 7,
        node: 'node0',
        invariant: 'sync-honest-peer',
        detail: 'node0 refused block 7 that honest node1 served it by sync: its parent is not our head',
        evidence: { peer: 'node1', reason: 'its parent is not our head' },
      },
    ]);
  });
});
