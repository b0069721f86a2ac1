// Which account key the console takes: the oldest .pem in the suite's folder, made when there is
// none, its address derived from the key.
import { mkdtemp, rm, utimes, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locateAccount } from './accounts.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('locateAccount', () => {
  it('makes a key when the folder has none, then takes the oldest key there (by time, then name)', async () => {
    const store = await mkdtemp(path.join(tmpdir(), 'twinchain-accounts-'));
    dirs.push(store);
    const first = await locateAccount(store, 'ecdsa');
    expect(first).toMatchObject({ created: true, address: expect.stringMatching(/^0x[0-9a-f]{40}$/) as unknown });
    expect(path.basename(first.file)).toBe(`${first.address}.pem`);
    const second = await locateAccount(path.join(store, 'other'), 'ecdsa');
    const later = path.join(store, 'ecdsa', path.basename(second.file));
    await copyFile(second.file, later);
    const old = new Date('2026-01-01T00:00:00Z');
    await utimes(later, old, new Date('2026-01-02T00:00:00Z'));
    await utimes(first.file, old, new Date('2026-01-03T00:00:00Z'));
    expect(await locateAccount(store, 'ecdsa')).toEqual({ file: later, address: second.address, created: false });
    await utimes(later, old, new Date('2026-01-04T00:00:00Z'));
    expect(await locateAccount(store, 'ecdsa')).toEqual({ file: first.file, address: first.address, created: false });
  });
});
