import { describe, expect, it } from 'vitest';
import { BuildChainUsageError, checkBuildChainOptions, parseBuildChainArgs, type BuildChainOptions } from './options.js';

function parse(args: string[]): BuildChainOptions {
  const parsed = parseBuildChainArgs(args);
  if (parsed === 'help') throw new Error('unexpected help');
  return parsed;
}

function refusal(args: string[]): string {
  try {
    parseBuildChainArgs(args);
  } catch (error) {
    expect(error).toBeInstanceOf(BuildChainUsageError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`accepted: ${args.join(' ')}`);
}

describe('parseBuildChainArgs', () => {
  it('takes FISCO defaults', () => {
    expect(parse(['-l', '127.0.0.1:4'])).toEqual({
      hosts: [{ ip: '127.0.0.1', count: 4 }],
      ports: { p2p: 30300, channel: 20200, rpc: 8545 },
      outputDir: './nodes',
      listenAll: false,
      consensus: 'pbft',
      sm: false,
      supportedVersion: '2.11.0',
      chainId: 1,
      debugLog: false,
      stateType: 'storage',
    });
  });

  it('reads every option, keeping -c and -C apart', () => {
    expect(
      parse(['-l', '127.0.0.1:2,10.0.0.7:1,10.0.0.8', '-p', '40000,41000,42000', '-o', 'out/x', '-i', '-c', 'raft', '-g', '-v', 'v2.4.0', '-C', '7', '-T', '--state', 'mpt']),
    ).toEqual({
      hosts: [
        { ip: '127.0.0.1', count: 2 },
        { ip: '10.0.0.7', count: 1 },
        { ip: '10.0.0.8', count: 1 },
      ],
      ports: { p2p: 40000, channel: 41000, rpc: 42000 },
      outputDir: 'out/x',
      listenAll: true,
      consensus: 'raft',
      sm: true,
      supportedVersion: '2.4.0',
      chainId: 7,
      debugLog: true,
      stateType: 'mpt',
    });
  });

  it('-v names one version range, the one it accepts, whatever was wrong (issue 44)', () => {
    for (const v of ['3.0.0', '2.12.0', '2.255.255', '1.3.0', '2.0.0-rc4', 'latest', '']) {
      expect(refusal(['-l', '127.0.0.1:1', '-v', v])).toBe(`-v "${v}": not a supported_version Twinchain runs: expected one of 2.0.0-rc1 … 2.11.0 (x.y.z, or 2.0.0-rc1, -rc2, -rc3)`);
    }
  });

  it('accepts every supported_version the chain layer accepts', () => {
    for (const v of ['2.0.0-rc1', '2.0.0-rc2', '2.0.0-rc3', '2.0.0', '2.2.0', '2.9.0', '2.11.0']) expect(parse(['-l', '127.0.0.1:1', '-v', v]).supportedVersion).toBe(v);
  });

  it('returns help for -h', () => {
    expect(parseBuildChainArgs(['-h'])).toBe('help');
    expect(parseBuildChainArgs(['-l', '127.0.0.1:1', '-h'])).toBe('help');
  });

  it('accepts ports right up to 65535', () => {
    expect(parse(['-l', '127.0.0.1:4', '-p', '65532,20200,8545']).ports.p2p).toBe(65532);
    expect(parse(['-l', '127.0.0.1:4', '-p', '30300,30304,30308']).ports).toEqual({ p2p: 30300, channel: 30304, rpc: 30308 });
  });

  it.each([
    [['-p', '1,2,3'], /^-l "ip:count\[,ip:count…\]" is required/],
    [['-l', ''], /^-l "": empty/],
    [['-l', '127.0.0.1:4,'], /^-l "127\.0\.0\.1:4,": an empty entry/],
    [['-l', '127.0.0.1:4 127.0.0.2:4'], /^-l "127\.0\.0\.1:4 127\.0\.0\.2:4": the node count of 127\.0\.0\.1 \("4 127\.0\.0\.2:4"\) is not a whole number/],
    [['-l', '127.0.0.1:'], /^-l "127\.0\.0\.1:": the node count of 127\.0\.0\.1 \(""\)/],
    [['-l', '127.0.0.1:x'], /^-l "127\.0\.0\.1:x": the node count/],
    [['-l', '127.0.0.1:-1'], /^-l "127\.0\.0\.1:-1": the node count/],
    [['-l', '127.0.0.1:0'], /^-l "127\.0\.0\.1:0": 127\.0\.0\.1 has 0 nodes/],
    [['-l', '127.0.0.1:1,127.0.0.2:0'], /^-l "127\.0\.0\.1:1,127\.0\.0\.2:0": 127\.0\.0\.2 has 0 nodes/],
    [['-l', '256.0.0.1:1'], /^-l "256\.0\.0\.1:1": "256\.0\.0\.1" is not an IPv4 address/],
    [['-l', '127.0.0:1'], /"127\.0\.0" is not an IPv4 address/],
    [['-l', '127.0.0.01:1'], /"127\.0\.0\.01" is not an IPv4 address/],
    [['-l', 'localhost:1'], /"localhost" is not an IPv4 address/],
    [['-l', '0.0.0.0:1'], /"0\.0\.0\.0" is not an IPv4 address/],
    [['-l', '::1:1'], /is not an IPv4 address/],
    [['-l', '127.0.0.1:2,127.0.0.1:1'], /^-l "127\.0\.0\.1:2,127\.0\.0\.1:1": 127\.0\.0\.1 is listed twice/],
    [['-l', '127.0.0.1:1', '-p', '30300,20200'], /^-p "30300,20200": expected three start ports/],
    [['-l', '127.0.0.1:1', '-p', '30300,20200,8545,1'], /^-p "30300,20200,8545,1": expected three/],
    [['-l', '127.0.0.1:1', '-p', '30300,x,8545'], /^-p "30300,x,8545": expected three/],
    [['-l', '127.0.0.1:1', '-p', '0,20200,8545'], /^-p "0,20200,8545": the p2p start port 0 is outside 1\.\.65535/],
    [['-l', '127.0.0.1:1', '-p', '30300,70000,8545'], /^-p "30300,70000,8545": the channel start port 70000 is outside/],
    [['-l', '127.0.0.1:4', '-p', '30300,20200,65533'], /^-p "30300,20200,65533": the rpc ports of 4 nodes on one IP would run to 65536, past 65535/],
    [['-l', '127.0.0.1:4', '-p', '30300,30303,8545'], /^-p "30300,30303,8545": with 4 nodes on one IP the p2p ports 30300\.\.30303 and the channel ports 30303\.\.30306 overlap/],
    [['-l', '127.0.0.1:1,127.0.0.2:3', '-p', '8545,20200,8543'], /the p2p ports 8545\.\.8547 and the rpc ports 8543\.\.8545 overlap/],
    [['-l', '127.0.0.1:1', '-p', '8545,20200,8545'], /the p2p ports 8545\.\.8545 and the rpc ports 8545\.\.8545 overlap/],
    [['-l', '127.0.0.1:40000'], /^-p "30300,20200,8545" \(the default\): the p2p ports of 40000 nodes/],
    [['-l', '127.0.0.1:1', '-c', 'rpbft'], /^-c "rpbft": the consensus must be pbft or raft/],
    [['-l', '127.0.0.1:1', '--state', 'rocksdb'], /^--state "rocksdb": expected storage \(FISCO's storage state, the default\) or mpt/],
    [['-l', '127.0.0.1:1', '-c', 'PBFT'], /^-c "PBFT"/],
    [['-l', '127.0.0.1:1', '-v', '3.0.0'], /^-v "3\.0\.0": not a supported_version/],
    [['-l', '127.0.0.1:1', '-v', '2.0.0-rc4'], /^-v "2\.0\.0-rc4": not a supported_version/],
    [['-l', '127.0.0.1:1', '-v', 'latest'], /^-v "latest": not a supported_version/],
    [['-l', '127.0.0.1:1', '-C', '0'], /^-C "0": the chain id must be a positive integer/],
    [['-l', '127.0.0.1:1', '-C', '-3'], /^-C needs a value \(the next argument starts with "-"\)$/],
    [['-l', '127.0.0.1:1', '-C', '1.5'], /^-C "1\.5": the chain id/],
    [['-l', '127.0.0.1:1', '-C', '2147483648'], /^-C "2147483648": the chain id must be a positive integer up to 2147483647/],
    [['-l', '127.0.0.1:1', '-x'], /^unknown option -x \(build-chain takes/],
    [['-l', '127.0.0.1:1', '--ports-start', '1'], /^unknown option --ports-start/],
    [['-l', '127.0.0.1:1', 'extra'], /^unexpected argument "extra"/],
    [['-l'], /^-l needs a value$/],
    [['-l', '127.0.0.1:1', '-p'], /^-p needs a value$/],
    [['-l', '127.0.0.1:1', '-o', ''], /^-o "": the output directory must not be empty/],
  ])('refuses %j with one line naming the option and the value', (args, pattern) => {
    expect(refusal(args)).toMatch(pattern);
  });

  it('checkBuildChainOptions refuses options built in code as the parser would', () => {
    const good = parse(['-l', '127.0.0.1:2']);
    expect(() => checkBuildChainOptions(good)).not.toThrow();
    expect(() => checkBuildChainOptions({ ...good, hosts: [{ ip: '127.0.0.1', count: 0 }] })).toThrow(/has 0 nodes/);
    expect(() => checkBuildChainOptions({ ...good, chainId: 0 })).toThrow(/-C "0"/);
    expect(() => checkBuildChainOptions({ ...good, supportedVersion: '2.0.0-rc9' })).toThrow(/-v "2\.0\.0-rc9"/);
    expect(() => checkBuildChainOptions({ ...good, ports: { p2p: 30300, channel: 30301, rpc: 8545 } })).toThrow(/overlap/);
  });
});
