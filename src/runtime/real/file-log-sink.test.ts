import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLogSink, logFileName } from './file-log-sink.js';

const T0 = Date.UTC(2019, 5, 26, 16, 37, 5, 123); // 2019-06-26 16:37:05.123 UTC

describe('FileLogSink', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'twinchain-log-'));
    dir = path.join(root, 'node0', 'log');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const files = () => readdirSync(dir).sort();
  const read = (name: string) => readFileSync(path.join(dir, name), 'utf8');

  it('names files as FISCO does, in UTC like the line timestamps', () => {
    expect(logFileName(T0)).toBe('log_2019062616.37.log');
    expect(logFileName(Date.UTC(2020, 0, 2, 3, 4)), 'zero padded').toBe('log_2020010203.04.log');
    expect(logFileName(T0, 2)).toBe('log_2019062616.37.2.log');
  });

  it('under umask 000 the folder is 0700 and the files 0600 (a node\'s log is its user\'s alone)', () => {
    const old = process.umask(0);
    try {
      const sink = new FileLogSink({ dir });
      sink.write('info', T0, 'one');
      sink.close();
    } finally {
      process.umask(old);
    }
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(path.join(dir, 'log_2019062616.37.log')).mode & 0o777).toString(8)).toBe('600');
  });

  it('creates the directory and writes exact lines, each with the OS before write() returns', () => {
    const sink = new FileLogSink({ dir });
    sink.write('info', T0, '[P2P][Service] heartBeat,connected count=3');
    sink.write('warning', T0 + 1000, '[g:1][CONSENSUS][PBFT]ViewChangeWarning: not caused by omit empty block ,v=5');
    expect(files()).toEqual(['log_2019062616.37.log']);
    expect(sink.currentFile).toBe(path.join(dir, 'log_2019062616.37.log'));
    expect(read('log_2019062616.37.log')).toBe(
      'info|2019-06-26 16:37:05.123000|[P2P][Service] heartBeat,connected count=3\n' +
        'warning|2019-06-26 16:37:06.123000|[g:1][CONSENSUS][PBFT]ViewChangeWarning: not caused by omit empty block ,v=5\n',
    );
    sink.close();
    sink.write('error', T0 + 2000, 'after close');
    expect(read('log_2019062616.37.log')).not.toContain('after close');
  });

  it('opens a new file when the hour changes, named by the minute it opens in', () => {
    const sink = new FileLogSink({ dir });
    sink.write('info', T0, 'a');
    sink.write('info', Date.UTC(2019, 5, 26, 16, 59, 59, 999), 'b');
    sink.write('info', Date.UTC(2019, 5, 26, 17, 0, 0, 250), 'c');
    sink.write('info', Date.UTC(2019, 5, 26, 17, 42), 'd');
    sink.write('info', Date.UTC(2019, 5, 26, 19, 3), 'e');
    sink.close();
    expect(files()).toEqual(['log_2019062616.37.log', 'log_2019062617.00.log', 'log_2019062619.03.log']);
    expect(read('log_2019062616.37.log')).toBe('info|2019-06-26 16:37:05.123000|a\ninfo|2019-06-26 16:59:59.999000|b\n');
    expect(read('log_2019062617.00.log')).toBe('info|2019-06-26 17:00:00.250000|c\ninfo|2019-06-26 17:42:00.000000|d\n');
  });

  it('opens a new file when the next line would pass max_log_file_size', () => {
    const line = (i: number) => `message ${i} ${'x'.repeat(50)}`;
    const lineBytes = `info|2019-06-26 16:37:05.123000|${line(0)}\n`.length; // 89
    const sink = new FileLogSink({ dir, maxFileBytes: lineBytes * 3 });
    for (let i = 0; i < 4; i++) sink.write('info', T0, line(i)); // 3 fit; the 4th opens a file in the same minute: .1
    for (let i = 4; i < 7; i++) sink.write('info', T0 + 60_000, line(i)); // 16:38: the .1 file takes two more, then a new one
    sink.close();
    expect(files()).toEqual(['log_2019062616.37.1.log', 'log_2019062616.37.log', 'log_2019062616.38.log']);
    const numbers = (name: string) => [...read(name).matchAll(/message (\d)/g)].map((m) => Number(m[1]));
    expect(numbers('log_2019062616.37.log')).toEqual([0, 1, 2]);
    expect(numbers('log_2019062616.37.1.log')).toEqual([3, 4, 5]);
    expect(numbers('log_2019062616.38.log')).toEqual([6]);
    expect(read('log_2019062616.37.log')).toHaveLength(lineBytes * 3);
  });

  it('appends to the file of the same minute after a restart, and moves on when it is full', () => {
    let sink = new FileLogSink({ dir, maxFileBytes: 100 });
    sink.write('info', T0, 'first run');
    sink.close();
    sink = new FileLogSink({ dir, maxFileBytes: 100 });
    sink.write('info', T0 + 10, 'second run');
    expect(read('log_2019062616.37.log').split('\n')).toHaveLength(3);
    sink.write('info', T0 + 20, 'x'.repeat(90));
    sink.close();
    expect(files()).toEqual(['log_2019062616.37.1.log', 'log_2019062616.37.log']);
  });

  it('drops lines below the configured level', () => {
    const levels = ['trace', 'debug', 'info', 'warning', 'error'] as const;
    const seen = (minLevel: (typeof levels)[number]) => {
      const sub = path.join(root, minLevel);
      const sink = new FileLogSink({ dir: sub, minLevel });
      for (const level of levels) sink.write(level, T0, level);
      sink.close();
      return readFileSync(path.join(sub, 'log_2019062616.37.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('|')[0]);
    };
    expect(seen('trace')).toEqual(['trace', 'debug', 'info', 'warning', 'error']);
    expect(seen('debug')).toEqual(['debug', 'info', 'warning', 'error']);
    expect(seen('info')).toEqual(['info', 'warning', 'error']);
    expect(seen('error')).toEqual(['error']);
    expect(() => new FileLogSink({ dir, minLevel: 'fatal' as never })).toThrow(/unknown level/);
  });

  it('enable=false writes nothing, not even the directory', () => {
    const sink = new FileLogSink({ dir, enable: false });
    sink.write('error', T0, 'x');
    sink.close();
    expect(readdirSync(root)).toEqual([]);
  });

  it('flush=false buffers until flush(), close() or a rotation', () => {
    const sink = new FileLogSink({ dir, flush: false });
    sink.write('info', T0, 'a');
    expect(read('log_2019062616.37.log')).toBe('');
    sink.flush();
    expect(read('log_2019062616.37.log')).toBe('info|2019-06-26 16:37:05.123000|a\n');
    sink.write('info', T0, 'b');
    sink.write('info', T0 + 3_600_000, 'c'); // rotation writes b to the old file first
    expect(read('log_2019062616.37.log')).toBe('info|2019-06-26 16:37:05.123000|a\ninfo|2019-06-26 16:37:05.123000|b\n');
    sink.close();
    expect(read('log_2019062617.37.log')).toBe('info|2019-06-26 17:37:05.123000|c\n');
  });

  it('reports a failure once to onError and never throws', () => {
    writeFileSync(path.join(root, 'blocker'), 'a file where the directory should be');
    const errors: Error[] = [];
    const sink = new FileLogSink({ dir: path.join(root, 'blocker', 'log'), onError: (e) => errors.push(e) });
    sink.write('info', T0, 'a');
    sink.write('info', T0 + 1, 'b');
    sink.write('info', T0 + 3_600_000, 'next hour: tried again, still failing');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/EEXIST|ENOTDIR/);
    const throwing = new FileLogSink({
      dir: path.join(root, 'blocker', 'log'),
      onError: () => {
        throw new Error('callback bug');
      },
    });
    expect(() => throwing.write('info', T0, 'a')).not.toThrow();
    sink.close();
  });
});
