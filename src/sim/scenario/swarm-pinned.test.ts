import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from './scenario-loader.js';
import { runScenario } from './scenario-runner.js';
import { drawSwarm } from './swarm.js';

const scenarios = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scenarios');

/**
 * A few swarm seeds of each consensus, run whole (faults, byzantine senders, hostile clients, the
 * pool, sync, both drivers and the group), with the digest of their trace pinned: every message
 * delivered, timer fired, log line and fault, in order, recorded from this code. The seeds must
 * still pass, and any change to what a node does or logs shows as a new digest. A deliberate
 * change updates the list (the failure names the new digest); a planted bug in the node stack
 * rarely gets past it, which is what `npm run mutation` counts on (docs/mutation.md).
 */
const PINNED: Record<string, Record<number, string>> = {
  'pbft-swarm.yaml': { 1: '572f137e4aca9592', 2: '17b51489f1f77404', 3: '1e9d1bf467104dd6', 4: 'fe682c9bc7e0301a', 5: 'f7fc28d7cd1c9baf', 6: 'c5fca7c15808b6e8' },
  'raft-swarm.yaml': { 1: '5aa617223571e289', 2: '8baad6b3e3bf9f87', 3: '719af89a9ab126ec', 4: 'ed7f39224f4c4598', 5: 'f322a0925bec7cf5', 6: '9bc92fe7c60fe75d' },
};

describe.each(Object.keys(PINNED))('%s: pinned swarm seeds', (file) => {
  it.each(Object.keys(PINNED[file]!).map(Number))('seed %i passes and replays to its recorded digest', async (seed) => {
    const draw = drawSwarm(await loadScenarioFile(path.join(scenarios, file)), seed);
    const result = await runScenario(draw.scenario, { file, seed });
    const failed = result.expectations.filter((e) => !e.ok).map((e) => `${e.name}: ${e.detail}`);
    expect({ verdict: result.verdict, violations: result.violations.map((v) => v.detail), failed }).toEqual({ verdict: 'pass', violations: [], failed: [] });
    expect(result.digest, `${file} seed ${seed}: the digest now`).toBe(PINNED[file]![seed]);
  });
});
