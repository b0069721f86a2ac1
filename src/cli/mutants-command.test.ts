import { describe, expect, it } from 'vitest';
import { catalogue } from '../mutants/index.js';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';

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
  });
});
