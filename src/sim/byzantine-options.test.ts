import { describe, expect, it } from 'vitest';
import type { PbftDriver } from '../node/index.js';
import { SimChain, type SimChainOptions } from './sim-chain.js';

const base: SimChainOptions = { seed: 'options', nodes: 4, groups: [{ id: 1, consensus: 'pbft', sealers: ['node0', 'node1', 'node2', 'node3'] }] };

describe('SimChain byzantine and twins options', () => {
  it('refuses what cannot be meant', () => {
    const chain = (extra: Partial<SimChainOptions>) => () => new SimChain({ ...base, ...extra });
    expect(chain({ twins: [['node9', 'x']] })).toThrow(/twins: "node9" is not one of the nodes/);
    expect(chain({ twins: [['node3', 'node1']] })).toThrow(/twin name "node1" is already taken/);
    expect(chain({ twins: ['node3'], groups: [{ id: 1, consensus: 'pbft', sealers: ['node0', 'node3-twin'] }] })).toThrow(/"node3-twin" is a twin/);
    expect(chain({ byzantine: { node1: { behaviour: 'lying' as never } } })).toThrow(/behaviour must be one of equivocate, double-sign, silent/);
    expect(chain({ byzantine: { node7: { behaviour: 'silent' } } })).toThrow(/setBehaviour\("node7"\): unknown node/);
    expect(chain({ byzantine: { node1: { behaviour: 'silent', fromMs: 5, untilMs: 5 } } })).toThrow(/untilMs must be after fromMs/);
    expect(chain({ byzantine: { node1: [{ behaviour: 'silent', untilMs: 100 }, { behaviour: 'equivocate', fromMs: 50 }] } })).toThrow(/overlaps the next interval/);
    expect(chain({ byzantine: { node1: { behaviour: 'silent', group: 2 } } })).toThrow(/not in PBFT group 2/);
    expect(chain({ groups: [{ id: 1, consensus: 'raft', sealers: ['node0', 'node1', 'node2'] }], byzantine: { node1: { behaviour: 'silent' } } })).toThrow(/in no PBFT group/);
    expect(chain({ byzantine: { node1: { behaviour: 'equivocate', conflictPeers: ['nobody'] } } })).toThrow(/unknown node "nobody"/);
  });

  it('a twin keeps its original identity and groups; a behaviour set before boot or while down applies at boot', async () => {
    const chain = new SimChain({ ...base, twins: [['node2', 'node2b']], byzantine: { node2b: { behaviour: 'equivocate', conflictPeers: ['node0'] } } });
    expect(chain.names).toEqual(['node0', 'node1', 'node2', 'node3', 'node2b']);
    expect(chain.ids[4]).toBe(chain.ids[2]);
    expect(chain.nameOf(chain.ids[2]!)).toBe('node2');
    expect(chain.twinOf.get('node2b')).toBe('node2');
    chain.setBehaviour('node1', 'silent');
    await chain.sim.run({ until: 10 });
    const driver = (name: string) => chain.group(name)!.consensus as PbftDriver;
    expect(driver('node2b').behaviour).toEqual({ kind: 'equivocate', conflictPeers: [chain.idOf('node0')] });
    expect(driver('node1').behaviour).toEqual({ kind: 'silent' });
    expect(driver('node2').behaviour).toBeUndefined();
    expect(chain.group('node2b')!.nodeId).toBe(chain.idOf('node2'));
    chain.sim.crash('node1');
    chain.sim.at(20, () => chain.setBehaviour('node1', { behaviour: 'double-sign' }));
    chain.sim.at(30, () => chain.sim.restart('node1'));
    await chain.sim.run({ until: 40 });
    expect(driver('node1').behaviour).toEqual({ kind: 'double-sign' });
    chain.sim.at(50, () => chain.setBehaviour('node1', undefined));
    await chain.sim.run({ until: 60 });
    expect(driver('node1').behaviour).toBeUndefined();
    expect(chain.behaviourOf('node1')).toBeUndefined();
  });
});
