import { describe, expect, it } from 'vitest';
import { catalogue, type MutantReport, type MutantShrink } from '../mutants/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { resultLine, runUnmutated, shrinkLine } from './mutants-command.js';
import { scenarioFolder } from './scenario-files.test-helper.js';

const files = scenarioFolder('twinchain-mutants-cmd-');

describe('twinchain mutants', () => {
  it('--list prints every catalogue mutant with its title, scenarios and patched files', async () => {
    const io = captureIo();
    expect(await main(['mutants', '--list'], io)).toBe(0);
    for (const m of catalogue) expect(io.stdout).toMatch(new RegExp(`^${m.id} +${m.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(io.stdout).toContain('on raft-swarm.yaml; patches src/node/raft-driver.ts');
    expect(io.stdout).toMatch(/^ +on pbft-swarm\.yaml; patches src\/consensus\/pbft\/pbft\.ts \(quick\)$/m);
  });

  it('refuses an unknown mutant, a bad budget, bad jobs and stray arguments with one line', async () => {
    const cases: Array<[string[], string]> = [
      [['--only', 'pbft-nope'], `unknown mutant "pbft-nope" (known: ${catalogue.map((m) => m.id).join(', ')})`],
      [['--only', ','], '--only needs at least one mutant id (see --list)'],
      [['--budget', 'soon'], '--budget must be a duration such as 300s, 5m or 1h (got "soon")'],
      [['--jobs', '0'], '--jobs must be an integer from 1 to 256 (got "0")'],
      [['extra'], 'unexpected argument "extra"'],
      [['--shrink-budget', '1m'], '--shrink-budget goes with --shrink'],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      expect(await main(['mutants', ...args], io)).toBe(2);
      expect(io.stderr).toBe(`twinchain mutants: ${message}\n`);
    }
  });

  it('documents itself in --help', async () => {
    const io = captureIo();
    expect(await main(['mutants', '--help'], io)).toBe(0);
    expect(io.stdout).toContain('caught only as a stall');
    expect(io.stdout).toContain('--quick');
    expect(io.stdout).toContain('--shrink');
  });

  it('prints the shrink command beside the replay, and with --shrink the shrunk size and what the unmutated code makes of it', async () => {
    const report: MutantReport = {
      id: 'pbft-forget-lock',
      title: 't',
      detection: 'caught',
      scenario: 'pbft-swarm.yaml',
      seed: 22,
      afterMs: 20_500,
      evidence: ['pbft-lock'],
      seeds: 22,
      replay: 'npx twinchain mutants --only pbft-forget-lock --seed 22',
      wallMs: 21_000,
      scenarios: [],
    };
    expect(resultLine(report).split('\n')).toEqual([
      'pbft-forget-lock: caught by pbft-lock on pbft-swarm.yaml seed 22 after 20.5 s (22 seeds)',
      '    replay: npx twinchain mutants --only pbft-forget-lock --seed 22',
      '    shrink: npx twinchain mutants --only pbft-forget-lock --seed 22 --shrink',
    ]);
    const shrink: MutantShrink = {
      command: 'npx twinchain mutants --only pbft-forget-lock --seed 22 --shrink',
      file: 'reports/mutants/pbft-forget-lock/shrink/shrunk.yaml',
      target: { kind: 'invariant', name: 'pbft-lock' },
      eventsBefore: 4,
      eventsKept: 2,
      settingsBefore: 2,
      settingsKept: 2,
      nodesBefore: 4,
      nodesAfter: 4,
      durationMsBefore: 40_000,
      durationMsAfter: 17_000,
      candidates: 23,
      minimal: true,
      verified: true,
      wallMs: 51_600,
    };
    expect(shrinkLine(shrink, { verdict: 'pass', failed: [] })).toBe(
      '    shrunk: kept 2 of 4 events and 2 of 2 network settings; nodes 4 → 4; duration 40 s → 17 s; 23 candidates in 51.6 s; 1-minimal; fails with pbft-lock twice, one digest; passes on the unmutated code; reports/mutants/pbft-forget-lock/shrink/shrunk.yaml',
    );
    expect(shrinkLine({ ...shrink, minimal: false }, { verdict: 'fail', failed: ['pbft-lock'] })).toContain('NOT YET MINIMAL; fails with pbft-lock twice, one digest; FAILS ON THE UNMUTATED CODE TOO (pbft-lock)');
    expect(shrinkLine({ ...shrink, error: 'shrink exited with code 2 without writing shrink.json: boom' })).toBe('    shrink failed: shrink exited with code 2 without writing shrink.json: boom');
  });

  it('runs a shrunk scenario on the unmutated code: a pass, a failure named, a file that cannot run', async () => {
    const calm = await files.file('calm', 'name: calm\nduration: 2s\nchain: { nodes: 4, consensusSignatures: simulated }\nexpect: { liveness: false }\n');
    const high = await files.file('high', 'name: high\nduration: 2s\nchain: { nodes: 4, consensusSignatures: simulated }\nexpect: { liveness: false, minHeight: 100 }\n');
    expect(await runUnmutated(calm)).toEqual({ verdict: 'pass', failed: [] });
    expect(await runUnmutated(high)).toEqual({ verdict: 'fail', failed: ['every live honest node reached height 100'] });
    expect(await runUnmutated(`${calm}.missing`)).toMatchObject({ verdict: 'error', error: expect.stringContaining('cannot read the file') });
  });
});
