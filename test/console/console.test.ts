// `twinchain console` against a running `twinchain serve` (4 PBFT sealers, channel ports with
// serve's own certificates): the deploy/call flow, scripting on stdin, an interactive
// session through a pseudo-terminal, node management and the errors a person meets.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCerts } from '../../src/channel/channel-test-harness.test-helper.js';
import { captureIo } from '../../src/cli/capture-io.test-helper.js';
import { startServe } from '../../src/cli/serve-harness.test-helper.js';
import { initConsole, runConsole } from '../../src/console/index.js';

const BIN = new URL('../../bin/twinchain.js', import.meta.url).pathname;

let root: string;
let dir: string;
let serve: Awaited<ReturnType<typeof startServe>>;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'console-e2e-'));
  serve = await startServe(['--nodes', '4', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', path.join(root, 'certs'), '--quiet', '--seed', 'console-e2e']);
  dir = path.join(root, 'console');
  initConsole(dir, serve.sdkDir!, serve.channels.map((p) => `127.0.0.1:${p}`).join(','));
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Runs console commands in this process, as `twinchain console <dir> -e … -e …` does. */
async function consoleRun(commands: string[], folder = dir) {
  const io = captureIo();
  const code = await runConsole({ dir: folder, group: 1, commands, input: new PassThrough(), output: new PassThrough(), interactive: false, io });
  return { code, out: io.stdout, err: io.stderr };
}

/** Runs the real CLI with `input` on stdin (or through `script` for a pseudo-terminal). */
function child(args: string[], input: (write: (text: string) => void, output: () => string) => Promise<void>, timeoutMs = 60_000) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const proc = spawn(args[0]!, args.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm', COLUMNS: '200' } });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`timed out; stdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
    input((text) => proc.stdin.write(text), () => out).then(
      () => proc.stdin.end(),
      (error: Error) => {
        proc.kill('SIGKILL');
        reject(error);
      },
    );
  });
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const blockNumber = async () => Number((await consoleRun(['getBlockNumber'])).out.trim());

describe('twinchain console against serve', () => {
  it('deploys HelloWorld, reads it without a block, writes it with one, and reads the new value', async () => {
    const deployed = await consoleRun(['deploy HelloWorld']);
    expect(deployed.err).toBe('');
    expect(deployed.out).toMatch(/^transaction hash: 0x[0-9a-f]{64}\ncontract address: 0x[0-9a-f]{40}\ncurrentAccount: 0x[0-9a-f]{40}\n$/);
    const address = /contract address: (0x[0-9a-f]{40})/.exec(deployed.out)![1]!;
    expect(readFileSync(path.join(dir, 'deploylog.txt'), 'utf8')).toMatch(new RegExp(`\\[group:1\\]  HelloWorld  ${address}\\n$`));

    // compiled once, by deploy: kept in the console folder (FISCO's contracts/sdk layout), keyed by the source's hash
    expect(JSON.parse(readFileSync(path.join(dir, 'contracts/sdk/cache/HelloWorld.json'), 'utf8'))).toMatchObject({ sources: { 'HelloWorld.sol': expect.stringMatching(/^[0-9a-f]{64}$/) as unknown } });
    expect(readFileSync(path.join(dir, 'contracts/sdk/bin/HelloWorld.bin'), 'utf8')).toMatch(/^[0-9a-f]+$/);

    const before = await blockNumber();
    const get = await consoleRun(['call HelloWorld latest get']);
    expect(get.out).toContain('Return values:(Hello, World!)');
    expect(await blockNumber()).toBe(before);

    const set = await consoleRun([`call HelloWorld ${address} set "hi"`]);
    expect(set.code).toBe(0);
    expect(set.out).toMatch(/^transaction hash: 0x[0-9a-f]{64}\n-{93}\ntransaction status: 0x0\ndescription: transaction executed successfully\n/);
    expect(set.out).toMatch(/Event: NameChanged\(0x[0-9a-f]{40}, Hello, World!, hi\)/);
    expect(await blockNumber()).toBe(before + 1);
    expect((await consoleRun(['call HelloWorld latest get'])).out).toContain('Return values:(hi)');
  });

  it('answers the queries: node version, lists, blocks, transactions, receipts, counts, config', async () => {
    const r = await consoleRun([
      'getNodeVersion',
      'getSealerList',
      'getGroupList',
      'getBlockByNumber 1',
      'getBlockHashByNumber 1',
      'getTotalTransactionCount',
      'getSystemConfigByKey tx_count_limit',
      'getPendingTxSize',
      'getPbftView',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('"Supported Version": "2.11.0"');
    expect(r.out).toMatch(/\[\n {4}"[0-9a-f]{128}",/);
    expect(r.out).toContain('[1]\n');
    const hash = /"hash": "(0x[0-9a-f]{64})"/.exec(r.out)![1]!;
    expect(r.out).toContain(`\n${hash}\n`);
    expect(r.out).toMatch(/"txSum": \d+/);
    expect(r.out).toContain('\n1000\n0\n');
    const tx = /"transactions": \[\n\s+"(0x[0-9a-f]{64})"/.exec(r.out)![1]!;
    const more = await consoleRun([`getTransactionByHash ${tx}`, `getTransactionReceipt ${tx}`, 'getTransactionByBlockNumberAndIndex 1 0', `getCode ${'0x' + '0'.repeat(40)}`]);
    expect(more.code).toBe(0);
    expect(more.out.match(new RegExp(`"hash": "${tx}"`, 'g'))).toHaveLength(2);
    expect(more.out).toContain(`"transactionHash": "${tx}"`);
    expect(more.out.trim().endsWith('0x')).toBe(true);
  });

  it('manages nodes and system config through the precompiles, and switches only to groups the node is in', async () => {
    const sealers = JSON.parse((await consoleRun(['getSealerList'])).out) as string[];
    const last = sealers.at(-1)!;
    const r = await consoleRun(['setSystemConfigByKey tx_count_limit 2000', 'getSystemConfigByKey tx_count_limit', `addObserver ${last}`, 'getObserverList', `addSealer ${last}`, 'getSealerList']);
    expect(r.err).toBe('');
    expect(r.out.split('\n').slice(0, 3)).toEqual(['{"code":0,"msg":"success"}', '2000', '{"code":0,"msg":"success"}']);
    expect(r.out).toContain(`[\n    "${last}"\n]`);
    expect(JSON.parse(r.out.slice(r.out.lastIndexOf('[')))).toContain(last);
    const bad = await consoleRun(['setSystemConfigByKey tx_count_limt 5']);
    expect(bad.err).toMatch(/unknown system configuration key "tx_count_limt"/);
    const sw = await consoleRun(['switch 2']);
    expect(sw.code).toBe(1);
    expect(sw.err).toBe('Error: the node is not in group 2 (its groups: 1)\n');
  });

  it('explains mistakes: typos, argument counts, reverts with their reason, compile errors with file:line', async () => {
    expect((await consoleRun(['getBlockNumbr'])).err).toBe('Error: unknown command "getBlockNumbr"; did you mean "getBlockNumber"? ("help" lists the commands)\n');
    expect((await consoleRun(['getBlockByNumber'])).err).toBe('Error: getBlockByNumber takes 1 to 2 argument(s), got 0\nUsage: getBlockByNumber <blockNumber> [includeTransactions: true|false]\n');
    expect((await consoleRun(['call HelloWorld latest set'])).err).toBe('Error: HelloWorld.set takes 1 argument(s), got 0: set(string)\n');
    expect((await consoleRun(['call Nope latest get'])).err).toMatch(/^Error: contracts\/solidity\/Nope.sol: no such file \(contracts here: Counter, .*HelloWorld/);

    const deployed = await consoleRun(['deploy Reverter']);
    expect(deployed.code).toBe(0);
    const reverted = await consoleRun(['call Reverter latest revertWithReason "no way"']);
    expect(reverted.code).toBe(1);
    expect(reverted.out).toContain('transaction status: 0x16\ndescription: revert instruction, revert reason: no way\n');
    expect(reverted.err).toBe('Error: revertWithReason(string) failed: status 0x16 (revert instruction), revert reason: no way\n');
    // issue 44: nothing was emitted, so no empty "Event logs" section follows the failure
    expect(reverted.out).not.toContain('Event logs');
    expect(reverted.out).not.toContain('Event: {}');

    writeFileSync(path.join(dir, 'contracts', 'solidity', 'Broken.sol'), 'pragma solidity ^0.8.0;\ncontract Broken {\n  function f() public { uint x = ; }\n}\n');
    const broken = await consoleRun(['deploy Broken']);
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(/^Error: compiling Broken.sol failed:\ncontracts\/solidity\/Broken.sol:3:34: error ParserError: Expected primary expression.\n {6}function f\(\) public \{ uint x = ; \}\n {37}\^\n$/);
  });

  it('names the failing certificate or the unreachable port', async () => {
    const rogue = path.join(root, 'rogue');
    cpSync(dir, rogue, { recursive: true });
    const other = makeCerts(mkdtempSync(path.join(root, 'other-ca-')));
    writeFileSync(path.join(rogue, 'conf', 'sdk.crt'), other.sdk.cert);
    writeFileSync(path.join(rogue, 'conf', 'sdk.key'), other.sdk.key);
    writeFileSync(path.join(rogue, 'conf', 'config.toml'), readFileSync(path.join(rogue, 'conf', 'config.toml'), 'utf8').replace(/peers = \[[^\]]*\]/, `peers = ["127.0.0.1:${serve.channels[0]}"]`));
    const refused = await consoleRun(['getBlockNumber'], rogue);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/the node refused this client certificate .*\[certificate .*rogue\/conf\/sdk.crt\]/);

    writeFileSync(path.join(rogue, 'conf', 'sdk.crt'), readFileSync(path.join(dir, 'conf', 'sdk.crt')));
    writeFileSync(path.join(rogue, 'conf', 'sdk.key'), readFileSync(path.join(dir, 'conf', 'sdk.key')));
    writeFileSync(path.join(rogue, 'conf', 'ca.crt'), other.ca);
    expect((await consoleRun(['getBlockNumber'], rogue)).err).toMatch(/does not chain to the configured CA certificate .*\[CA .*rogue\/conf\/ca.crt\]/);

    const port = Number(new URL(serve.urls[0]!).port);
    writeFileSync(path.join(rogue, 'conf', 'config.toml'), `[network]\npeers = ["127.0.0.1:${port}"]\n`);
    expect((await consoleRun(['getBlockNumber'], rogue)).err).toMatch(/the port does not speak TLS 1.2 \(is it the JSON-RPC port rather than the channel port\?\)/);
  });
});

describe('twinchain console as a process', () => {
  it('runs commands piped on stdin without a prompt and stops at the first failure with status 1', async () => {
    const r = await child([process.execPath, BIN, 'console', dir], async (write) => {
      write('getBlockNumber\n# a comment\n\ngetBlokNumber\ngetPendingTxSize\n');
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^\d+\n$/);
    expect(r.err).toContain('Error: unknown command "getBlokNumber"; did you mean "getBlockNumber"?');
  });

  it('is interactive on a terminal: welcome, prompt, tab completion, history, quit', async () => {
    const historyBefore = (() => {
      try {
        return readFileSync(path.join(dir, '.console_history'), 'utf8');
      } catch {
        return '';
      }
    })();
    const command = [process.execPath, BIN, 'console', dir].map((w) => `'${w}'`).join(' ');
    const prompts = (out: string) => out.split('[group:1]> ').length - 1;
    const r = await child(['script', '-qfec', command, '/dev/null'], async (write, output) => {
      await until('the first prompt', () => prompts(output()) >= 1);
      expect(output()).toMatch(/Welcome to the Twinchain console, connected to 127\.0\.0\.1:\d+/);
      write('getBlockNu\t');
      await until('the completion', () => output().includes('getBlockNumber'));
      write('\r');
      await until('the second prompt', () => prompts(output()) >= 2);
      write('\x1b[A'); // up: the last command again
      await until('history recall', () => output().split('getBlockNumber').length - 1 >= 2);
      write('\r');
      await until('the third prompt', () => prompts(output()) >= 3);
      write('quit\r');
    });
    expect(r.code).toBe(0);
    expect(r.out.match(/\r?\n\d+\r?\n/g)?.length).toBeGreaterThanOrEqual(2);
    expect(readFileSync(path.join(dir, '.console_history'), 'utf8').slice(historyBefore.length)).toBe('getBlockNumber\ngetBlockNumber\nquit\n');

    // the next session starts with that history: up recalls "quit", which ends it
    const again = await child(['script', '-qfec', command, '/dev/null'], async (write, output) => {
      await until('the prompt', () => prompts(output()) >= 1);
      write('\x1b[A');
      await until('the recalled quit', () => output().includes('quit'));
      write('\r');
    });
    expect(again.code).toBe(0);
  });
});

/** A one-node serve with `options` and a console folder for it, for the length of `use`. */
async function withChain(options: string[], use: (folder: string) => Promise<void>): Promise<void> {
  const base = mkdtempSync(path.join(tmpdir(), 'console-chain-'));
  const other = await startServe(['--nodes', '1', '--rpc-port', '0', '--channel-port', '0', '--cert-dir', path.join(base, 'certs'), '--quiet', ...options]);
  try {
    const folder = path.join(base, 'console');
    initConsole(folder, other.sdkDir!, `127.0.0.1:${other.channels[0]}`);
    await use(folder);
  } finally {
    await other.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

describe('twinchain console on other chains', () => {
  it('deploys and calls HelloWorld on an SM chain (SM2 account in account/gm/, SM2-signed transactions)', () =>
    withChain(['--suite', 'sm'], async (folder) => {
      const r = await consoleRun(['deploy HelloWorld', 'call HelloWorld latest set "other"', 'call HelloWorld latest get'], folder);
      expect(r.err).toBe('');
      expect(r.out).toContain('transaction status: 0x0');
      expect(r.out).toContain('Return values:(other)');
      const account = /currentAccount: (0x[0-9a-f]{40})/.exec(r.out)![1]!;
      expect(readFileSync(path.join(folder, 'account', 'gm', `${account}.pem`), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }), 60_000);

  it('sends 2.0.0-rc1 transactions to an earlier-variant chain, and says its receipts name no contract address', () =>
    withChain(['--supported-version', '2.0.0-rc1'], async (folder) => {
      const r = await consoleRun(['deploy HelloWorld', 'setSystemConfigByKey tx_count_limit 500', 'getSystemConfigByKey tx_count_limit', 'getBlockNumber'], folder);
      expect(r.err).toBe('');
      expect(r.out).toMatch(/^transaction hash: 0x[0-9a-f]{64}\ncontract address: unknown \(the node's receipts carry no contract address: the earlier interface variant;/);
      expect(r.out).toMatch(/\{"code":0,"msg":"success"\}\n500\n2\n$/);
      // rc1 writes a refusal's code as one byte (-51300 as 100): read back as the code it stands for
      expect((await consoleRun(['setSystemConfigByKey tx_count_limit 0'], folder)).err).toContain('{"code":-51300,"msg":"invalid configuration value"}');
      expect((await consoleRun(['call HelloWorld latest get'], folder)).err).toMatch(/no HelloWorld was deployed in group 1 from this console/);
    }), 60_000);
});
