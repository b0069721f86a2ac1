import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConsoleConfig } from './console-config.js';
import { initConsole } from './console-init.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'console-init-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A build-chain IP folder: sdk/ and two nodes whose config.ini name their channel ports. */
function chainFolder(): string {
  const ip = path.join(root, 'nodes', '127.0.0.1');
  mkdirSync(path.join(ip, 'sdk'), { recursive: true });
  for (const f of ['ca.crt', 'sdk.crt', 'sdk.key']) writeFileSync(path.join(ip, 'sdk', f), `${f}\n`);
  for (const [i, port] of [[0, 20200], [1, 20201]] as const) {
    mkdirSync(path.join(ip, `node${i}`));
    writeFileSync(path.join(ip, `node${i}`, 'config.ini'), `[rpc]\n    channel_listen_ip=0.0.0.0\n    channel_listen_port=${port}\n    jsonrpc_listen_port=${8545 + i}\n`);
  }
  return path.join(ip, 'sdk');
}

describe('console init', () => {
  it('lays out conf/ with the sdk files, config.toml with the sibling nodes\' channel ports, and the contracts', () => {
    const dir = path.join(root, 'console');
    const result = initConsole(dir, chainFolder());
    expect(result.peers).toEqual([{ host: '127.0.0.1', port: 20200 }, { host: '127.0.0.1', port: 20201 }]);
    expect(result.certificates).toEqual(['conf/ca.crt', 'conf/sdk.crt', 'conf/sdk.key']);
    expect(readFileSync(path.join(dir, 'conf', 'sdk.key'), 'utf8')).toBe('sdk.key\n');
    expect(result.contracts).toContain('HelloWorld');
    expect(readFileSync(path.join(dir, 'contracts', 'solidity', 'HelloWorld.sol'), 'utf8')).toMatch(/contract HelloWorld/);
    expect(readConsoleConfig(dir).peers).toEqual(result.peers);
  });

  it('takes --peers over the sibling nodes, and the default port when there are none', () => {
    const sdk = chainFolder();
    expect(initConsole(path.join(root, 'a'), sdk, '127.0.0.2:30300').peers).toEqual([{ host: '127.0.0.2', port: 30300 }]);
    rmSync(path.join(root, 'nodes', '127.0.0.1', 'node0'), { recursive: true });
    rmSync(path.join(root, 'nodes', '127.0.0.1', 'node1'), { recursive: true });
    expect(initConsole(path.join(root, 'b'), sdk).peers).toEqual([{ host: '127.0.0.1', port: 20200 }]);
  });

  it('refuses a missing or incomplete sdk folder, bad peers and an existing console, changing nothing', () => {
    const sdk = chainFolder();
    expect(() => initConsole(path.join(root, 'x'), path.join(root, 'nope'))).toThrow(/--sdk .*nope: no such folder/);
    rmSync(path.join(sdk, 'sdk.key'));
    expect(() => initConsole(path.join(root, 'x'), sdk)).toThrow(/sdk.key missing/);
    writeFileSync(path.join(sdk, 'sdk.key'), 'k');
    expect(() => initConsole(path.join(root, 'x'), sdk, 'localhost')).toThrow('--peers: "localhost" is not host:port (e.g. 127.0.0.1:20200)');
    expect(existsSync(path.join(root, 'x'))).toBe(false);
    const dir = path.join(root, 'c');
    initConsole(dir, sdk);
    writeFileSync(path.join(dir, 'conf', 'config.toml'), 'mine');
    expect(() => initConsole(dir, sdk)).toThrow(/config.toml already exists/);
    expect(readFileSync(path.join(dir, 'conf', 'config.toml'), 'utf8')).toBe('mine');
  });
});
