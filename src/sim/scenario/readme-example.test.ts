import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from './scenario-loader.js';

describe("the README's scenario file reference", () => {
  it('is a valid scenario using every timeline action', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Scenario files'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const scenario = parseScenario(yaml, 'README.md');
    const actions = new Set(scenario.timeline.flatMap((t) => Object.keys(t).filter((k) => k !== 'at' && k !== 'label')));
    expect([...actions].sort()).toEqual(
      ['addSealer', 'clockSkew', 'clog', 'crash', 'crashLeader', 'heal', 'isolate', 'link', 'messages', 'network', 'partition', 'partitionOneWay', 'setConfig'].sort(),
    );
    expect(scenario.workloads.map((w) => w.kind)).toEqual(['helloworld', 'deploy', 'token', 'mix', 'replay']);
  });

  it('reads its replay recording as a file in scenarios/ would', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Scenario files')))![1]!;
    const scenario = await loadScenario(yaml, new URL('../../../scenarios/readme-example.yaml', import.meta.url).pathname);
    const replay = scenario.workloads.find((w) => w.kind === 'replay');
    expect(replay?.kind === 'replay' && replay.recording?.transactions).toBe(32);
  });
});
