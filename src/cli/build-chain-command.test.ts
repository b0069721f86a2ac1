import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIo } from './capture-io.test-helper.js';
import { main } from './main.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'twinchain-build-chain-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('twinchain build-chain', () => {
  it('builds a chain and prints build_chain.sh\'s summary', async () => {
    const out = path.join(scratch, 'ok', 'nodes');
    const io = captureIo();
    expect(await main(['build-chain', '-l', '127.0.0.1:4', '-o', out], io)).toBe(0);
    expect(io.stderr).toBe('');
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines).toContain('[INFO] Start Port      : 30300 20200 8545');
    expect(lines).toContain('[INFO] Server IP       : 127.0.0.1:4');
    expect(lines).toContain(`[INFO] Output Dir      : ${out}`);
    expect(lines).toContain(`[INFO] CA Path         : ${out}/cert/`);
    expect(lines.at(-1)).toBe(`[INFO] All completed. Files in ${out}`);
    expect(readdirSync(path.join(out, '127.0.0.1')).sort()).toEqual(['node0', 'node1', 'node2', 'node3', 'sdk', 'start_all.sh', 'stop_all.sh']);
  });

  it('prints its help with every option', async () => {
    for (const args of [['build-chain', '--help'], ['build-chain', '-h']]) {
      const io = captureIo();
      expect(await main(args, io)).toBe(0);
      for (const option of ['-l', '-p', '-o', '-i', '-c', '-g', '-v', '-C', '-T', '-h']) expect(io.stdout).toMatch(new RegExp(`^  ${option}  `, 'm'));
      expect(io.stdout).toContain('default 30300,20200,8545');
      expect(io.stdout).toContain('Examples:');
    }
    const io = captureIo();
    await main(['--help'], io);
    expect(io.stdout).toMatch(/^ {2}build-chain -l/m);
  });

  it.each([
    [['-l', '127.0.0.1:x'], '-l "127.0.0.1:x": the node count of 127.0.0.1 ("x") is not a whole number'],
    [['-l', '127.0.0.1:0'], '-l "127.0.0.1:0": 127.0.0.1 has 0 nodes'],
    [['-l', '300.0.0.1:1'], '-l "300.0.0.1:1": "300.0.0.1" is not an IPv4 address'],
    [['-l', '127.0.0.1:1', '-p', '30300,20200,65536'], '-p "30300,20200,65536": the rpc start port 65536 is outside 1..65535'],
    [['-l', '127.0.0.1:3', '-p', '30300,30302,8545'], '-p "30300,30302,8545": with 3 nodes on one IP the p2p ports 30300..30302 and the channel ports 30302..30304 overlap'],
    [['-l', '127.0.0.1:1,127.0.0.1:2'], '-l "127.0.0.1:1,127.0.0.1:2": 127.0.0.1 is listed twice'],
    [['-l', '127.0.0.1:1', '-c', 'rpbft'], '-c "rpbft": the consensus must be pbft or raft'],
    [['-l', '127.0.0.1:1', '-v', '2.12.x'], '-v "2.12.x": not a supported_version'],
    [['-l', '127.0.0.1:1', '-C', 'abc'], '-C "abc": the chain id must be a positive integer'],
    [['-l', '127.0.0.1:1', '-k', 'ca'], 'unknown option -k'],
    [['-p', '30300,20200,8545'], '-l "ip:count[,ip:count…]" is required'],
  ])('refuses %j with exit status 2, one line, nothing written', async (args, start) => {
    const dir = path.join(scratch, 'refused');
    mkdirSync(dir, { recursive: true });
    const io = captureIo();
    expect(await main(['build-chain', ...args, '-o', path.join(dir, 'nodes')], io)).toBe(2);
    expect(io.stdout).toBe('');
    expect(io.stderr.startsWith(`twinchain build-chain: ${start}`)).toBe(true);
    expect(io.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an existing output directory with exit status 2', async () => {
    const out = path.join(scratch, 'twice', 'nodes');
    expect(await main(['build-chain', '-l', '127.0.0.1:1', '-o', out], captureIo())).toBe(0);
    const before = readFileSync(path.join(out, '127.0.0.1/node0/conf/node.nodeid'), 'utf8');
    const io = captureIo();
    expect(await main(['build-chain', '-l', '127.0.0.1:1', '-o', out], io)).toBe(2);
    expect(io.stderr).toBe(`twinchain build-chain: -o "${out}": ${out} already exists; remove it or choose another output directory\n`);
    expect(readFileSync(path.join(out, '127.0.0.1/node0/conf/node.nodeid'), 'utf8')).toBe(before);
  });

  it('exits 1 with one line naming the build log when openssl is not on PATH', async () => {
    const out = path.join(scratch, 'no-openssl', 'nodes');
    const saved = process.env.PATH;
    process.env.PATH = path.join(scratch, 'empty-bin');
    const io = captureIo();
    try {
      expect(await main(['build-chain', '-l', '127.0.0.1:1', '-o', out], io)).toBe(1);
    } finally {
      process.env.PATH = saved;
    }
    expect(io.stderr).toMatch(/^twinchain build-chain: build failed: openssl genpkey .* failed \(openssl not found on PATH\)[^;]*; .* was not created; details in .*nodes\.build\.log\n$/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(path.dirname(out))).toEqual(['nodes.build.log']);
    expect(readFileSync(`${out}.build.log`, 'utf8')).toMatch(/^failing command: openssl genpkey/m);
  });
});
