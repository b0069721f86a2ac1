import { describe, expect, it } from 'vitest';
import { configIni, planNodes, serviceListenIp } from './config-files.js';
import { parseBuildChainArgs, type BuildChainOptions } from './options.js';

function options(args: string[]): BuildChainOptions {
  const o = parseBuildChainArgs(args);
  if (o === 'help') throw new Error('help');
  return o;
}

describe('where channel and JSON-RPC listen', () => {
  it('loopback by default, the node\'s own 127.x address when it has one, every address with -i (docs/build-chain.md)', () => {
    expect(serviceListenIp('127.0.0.1', false)).toBe('127.0.0.1');
    expect(serviceListenIp('127.0.0.2', false)).toBe('127.0.0.2');
    expect(serviceListenIp('127.1.2.3', false)).toBe('127.1.2.3');
    // a machine address is never exposed without -i: its services stay on loopback
    expect(serviceListenIp('10.0.0.2', false)).toBe('127.0.0.1');
    expect(serviceListenIp('192.168.1.27', false)).toBe('127.0.0.1');
    expect(serviceListenIp('10.0.0.2', true)).toBe('0.0.0.0');
    expect(serviceListenIp('127.0.0.2', true)).toBe('0.0.0.0');
  });

  it('a node on a machine address listens for p2p there and serves channel and JSON-RPC on loopback', () => {
    const o = options(['-l', '10.0.0.2:2,127.0.0.3:1']);
    const nodes = planNodes(o);
    expect(nodes.map((n) => [n.ip, n.index, n.seq, n.p2pPort, n.channelPort, n.rpcPort])).toEqual([
      ['10.0.0.2', 0, 0, 30300, 20200, 8545],
      ['10.0.0.2', 1, 1, 30301, 20201, 8546],
      ['127.0.0.3', 0, 2, 30300, 20200, 8545],
    ]);
    const lines = (i: number) => configIni(o, nodes[i]!, nodes).split('\n').map((l) => l.trim());
    expect(lines(1)).toEqual(expect.arrayContaining(['listen_ip=10.0.0.2', 'listen_port=30301', 'channel_listen_ip=127.0.0.1', 'jsonrpc_listen_ip=127.0.0.1', 'jsonrpc_listen_port=8546']));
    expect(lines(2)).toEqual(expect.arrayContaining(['listen_ip=127.0.0.3', 'channel_listen_ip=127.0.0.3', 'jsonrpc_listen_ip=127.0.0.3']));
    expect(lines(0)).toEqual(expect.arrayContaining(['node.0=10.0.0.2:30300', 'node.1=10.0.0.2:30301', 'node.2=127.0.0.3:30300']));
  });
});
