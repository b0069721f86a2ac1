import { describe, expect, it } from 'vitest';
import type { SimChain } from '../sim-chain.js';
import { parseScenario } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';

const mix = (weights: string) => `
name: mix
seed: 5
duration: 6s
chain: { nodes: 4 }
groups:
  - { id: 1, consensus: pbft, sealers: 4 }
workloads:
  - { kind: mix, rate: 8, weights: ${weights} }
expect: { liveness: false }
`;

/** What node0's chain holds after a mix run: contract creations and calls. */
async function onChain(weights: string): Promise<{ creations: number; calls: number }> {
  let chain: SimChain | undefined;
  await runScenario(parseScenario(mix(weights), 'mix.yaml'), { onChain: (c) => (chain = c) });
  const group = chain!.group('node0', 1)!;
  let creations = 0;
  let calls = 0;
  for (let n = 1; n <= group.blockNumber(); n++) {
    for (const tx of (await group.blockByNumber(n))!.block.transactions) {
      if (tx.body.to) calls++;
      else creations++;
    }
  }
  return { creations, calls };
}

describe('a mix workload', () => {
  it('sets up only the contracts its weights use: HelloWorld alone deploys nothing for the token', async () => {
    const hello = await onChain('{ helloworld: 1, token: 0, deploy: 0 }');
    expect(hello.creations).toBe(1);
    expect(hello.calls).toBeGreaterThan(10);
    // with the token weighted, its deploy and the owner's grants to the workload's accounts come first
    const both = await onChain('{ helloworld: 1, token: 1, deploy: 0 }');
    expect(both.creations).toBe(2);
  });
});
