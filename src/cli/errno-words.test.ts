// Issue 44: no errno word (EADDRINUSE, ENOTFOUND, EISDIR, ENOTDIR, ...) reaches the user on its
// own: each failure is a sentence that names the option to change and what is wrong with it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';
import { freePortBlock } from '../bench/free-ports.js';

/** An errno code standing alone, as Node prints it ("EISDIR: illegal operation ..."), or a raw syscall message. */
const RAW_ERRNO = /\bE[A-Z]{3,}\b(?!\))|illegal operation|getaddrinfo|listen E/;

let dir: string;
let file: string;
let folder: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'twinchain-errno-'));
  file = path.join(dir, 'afile');
  folder = path.join(dir, 'afolder');
  writeFileSync(file, 'not a folder\n');
  mkdirSync(folder);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fails(args: string[], code = 2): Promise<string> {
  const io = captureIo();
  expect(await main(args, io)).toBe(code);
  expect(io.stderr.trim().split('\n')).toHaveLength(1);
  expect(io.stderr).not.toMatch(RAW_ERRNO);
  return io.stderr.trim();
}

describe('file-system errors name the option and say what is wrong', () => {
  it('node -c: a folder, and a path through a file', async () => {
    expect(await fails(['node', '-c', folder])).toBe(
      `twinchain node: -c ${folder}: it is a folder, not a file; -c takes the config.ini of a node directory (e.g. -c nodes/127.0.0.1/node0/config.ini)`,
    );
    expect(await fails(['node', '-c', path.join(file, 'config.ini')])).toBe(
      `twinchain node: -c ${path.join(file, 'config.ini')}: ${file} is a file, not a folder; -c takes the config.ini of a node directory (e.g. -c nodes/127.0.0.1/node0/config.ini)`,
    );
  });

  it('serve --cert-dir: a file, and a folder under a file', async () => {
    expect(await fails(['serve', '--nodes', '1', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', file])).toBe(`twinchain serve: --cert-dir ${file}: it is a file, not a folder`);
    const under = path.join(file, 'certs');
    expect(await fails(['serve', '--nodes', '1', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', under])).toBe(`twinchain serve: --cert-dir ${under}: ${file} is a file, not a folder`);
  });

  it('serve --log: a folder', async () => {
    expect(await fails(['serve', '--nodes', '1', '--rpc-port', '0', '--no-channel', '--log', folder])).toBe(`twinchain serve: --log ${folder}: cannot write it: it is a folder`);
  });

  it('a node directory whose config.ini names a folder as a file says which file and why', async () => {
    const node = path.join(dir, 'node0');
    mkdirSync(path.join(node, 'config.ini'), { recursive: true });
    expect(await fails(['node', '-c', path.join(node, 'config.ini')])).toMatch(/-c .*config\.ini: it is a folder, not a file/);
  });

  it('console: a console folder that is a file', async () => {
    const io = captureIo();
    expect(await main(['console', file, '-e', 'getBlockNumber'], io)).not.toBe(0);
    expect(io.stdout + io.stderr).toContain('a part of the path is a file, not a folder');
    expect(io.stdout + io.stderr).not.toMatch(RAW_ERRNO);
  });
});

describe('network errors name the option and the node', () => {
  let blocker: Server;
  let taken: number;
  beforeAll(async () => {
    // two free ports below the ephemeral range, the second held here: a port the kernel picked
    // (listen(0)) may have a neighbour another test's connection holds, and serve then names node0
    taken = (await freePortBlock(2)) + 1;
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('serve --rpc-port: the port of node1 in use names node1', async () => {
    expect(await fails(['serve', '--nodes', '2', '--no-channel', '--rpc-port', String(taken - 1)])).toBe(
      `twinchain serve: 127.0.0.1:${taken} (node1's JSON-RPC port) is already in use; pick another --rpc-port`,
    );
  }, 20_000);

  it('serve --host: a name that does not resolve, and an address of another machine', async () => {
    expect(await fails(['serve', '--nodes', '1', '--no-channel', '--rpc-port', '0', '--host', 'no-such-host.invalid'])).toMatch(
      /^twinchain serve: --host no-such-host\.invalid: (no such host \(the name does not resolve\)|the name server did not answer for it)$/,
    );
    expect(await fails(['serve', '--nodes', '1', '--no-channel', '--rpc-port', '0', '--host', '192.0.2.1'])).toBe(
      'twinchain serve: --host 192.0.2.1: not an address of this machine, so nothing can listen on it (e.g. --host 127.0.0.1)',
    );
  }, 20_000);

  it('conform: a host that does not resolve is said in words', async () => {
    const io = captureIo();
    expect(await main(['conform', 'http://no-such-host.invalid:8545'], io)).toBe(2);
    expect(io.stderr).toMatch(/the host name does not resolve|the name server did not answer/);
  }, 20_000);
});
