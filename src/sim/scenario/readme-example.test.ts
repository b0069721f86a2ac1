import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from './scenario-loader.js';

/** The YAML block under "The scenario language" in docs/scenarios.md. */
function referenceExample(): string {
  const page = readFileSync(new URL('../../../docs/scenarios.md', import.meta.url), 'utf8');
  const section = page.indexOf('## The scenario language');
  expect(section, 'docs/scenarios.md has a section "The scenario language"').toBeGreaterThan(0);
  return /```yaml\n([\s\S]*?)```/.exec(page.slice(section))![1]!;
}

// The scenario language's reference example (docs/scenarios.md), saved as scenarios/example.yaml by
// test/readme.test.ts, which runs it.
describe("docs/scenarios.md's scenario file reference", () => {
  it('is a valid scenario using every timeline action', () => {
    const yaml = referenceExample();
    const scenario = parseScenario(yaml, 'docs/scenarios.md');
    const actions = new Set(scenario.timeline.flatMap((t) => Object.keys(t).filter((k) => k !== 'at' && k !== 'label')));
    expect([...actions].sort()).toEqual(
      ['addSealer', 'clockSkew', 'clog', 'crash', 'crashLeader', 'heal', 'isolate', 'link', 'messages', 'network', 'partition', 'partitionOneWay', 'setConfig'].sort(),
    );
    expect(scenario.workloads.map((w) => w.kind)).toEqual(['helloworld', 'deploy', 'token', 'mix', 'replay']);
  });

  it('reads its replay recording as a file in scenarios/ would', async () => {
    const scenario = await loadScenario(referenceExample(), new URL('../../../scenarios/readme-example.yaml', import.meta.url).pathname);
    const replay = scenario.workloads.find((w) => w.kind === 'replay');
    expect(replay?.kind === 'replay' && replay.recording?.transactions).toBe(32);
  });
});
