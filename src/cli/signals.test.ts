import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { watchSignals, withStopSignal } from './signals.js';

const listeners = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

describe('signals of long-running commands', () => {
  it('resolves with the first signal and then listens no more', async () => {
    const before = listeners();
    const watch = watchSignals();
    expect(listeners()).toEqual(before.map((n) => n + 1));
    process.emit('SIGTERM', 'SIGTERM');
    await expect(watch.received).resolves.toBe('SIGTERM');
    expect(listeners()).toEqual(before);
  });

  it('stops listening when the command returns or throws, and never listens when told when to stop', async () => {
    const before = listeners();
    await expect(withStopSignal(undefined, async () => listeners())).resolves.toEqual(before.map((n) => n + 1));
    expect(listeners()).toEqual(before);
    await expect(withStopSignal(undefined, () => Promise.reject(new Error('bad input')))).rejects.toThrow('bad input');
    expect(listeners()).toEqual(before);
    await expect(withStopSignal(Promise.resolve(), async () => listeners())).resolves.toEqual(before);
  });

  // run in process, a failed serve, record or node (each fails after it began to listen) used to leave its SIGINT listener behind, so the
  // host process no longer stopped on Ctrl-C (and Node warned of a leak after ten)
  it.each([
    ['serve', '--nodes', 'many'],
    ['record', 'http://127.0.0.1:1/', '--to', '1', '--out', path.join(tmpdir(), `twinchain-signals-${process.pid}.jsonl`)],
    ['node', '-c', '/nonexistent/config.ini'],
  ])('%s with bad input hands Ctrl-C back', async (...args) => {
    const before = listeners();
    const io = captureIo();
    expect(await main(args, io)).toBeGreaterThan(0);
    expect(io.stdout + io.stderr).toMatch(/many|bad port|config\.ini/);
    expect(listeners()).toEqual(before);
  });
});
