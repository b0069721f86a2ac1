import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConsoleConfig, renderConsoleConfig } from './console-config.js';

const FILE = 'c/conf/config.toml';
const parse = (text: string) => parseConsoleConfig(text, FILE, '/c');

describe('the console config.toml', () => {
  it('reads FISCO console 2.x keys, paths relative to the console folder', () => {
    const config = parse(renderConsoleConfig([{ host: '127.0.0.1', port: 20200 }, { host: 'node1.local', port: 20201 }]));
    expect(config.peers).toEqual([{ host: '127.0.0.1', port: 20200 }, { host: 'node1.local', port: 20201 }]);
    expect(config.certs).toEqual({ ca: path.resolve('/c/conf/ca.crt'), cert: path.resolve('/c/conf/sdk.crt'), key: path.resolve('/c/conf/sdk.key') });
    expect(config.keyStoreDir).toBe(path.resolve('/c/account'));
    expect(config.useSMCrypto).toBeUndefined();
  });

  it('takes single certificate files, other folders and useSMCrypto', () => {
    const config = parse('[cryptoMaterial]\ncertPath = "certs"\nsslKey = "keys/my.key"\nuseSMCrypto = "true"\n[network]\npeers = ["10.0.0.1:30300"]\n[account]\nkeyStoreDir = "/keys"\n');
    expect(config.certs).toEqual({ ca: path.resolve('/c/certs/ca.crt'), cert: path.resolve('/c/certs/sdk.crt'), key: path.resolve('/c/keys/my.key') });
    expect(config.keyStoreDir).toBe(path.resolve('/keys'));
    expect(config.useSMCrypto).toBe(true);
  });

  it('says what is wrong and where', () => {
    expect(() => parse('[network]\npeers = ["127.0.0.1:20200"\n')).toThrow(/^c\/conf\/config.toml:\d+:\d+: /);
    expect(() => parse('[cryptoMaterial]\n')).toThrow('c/conf/config.toml: [network] peers: missing (e.g. peers=["127.0.0.1:20200"])');
    expect(() => parse('[network]\npeers = []\n')).toThrow('c/conf/config.toml:2: [network] peers: must be a non-empty list of "host:port" strings');
    expect(() => parse('[network]\npeers = ["127.0.0.1"]\n')).toThrow('c/conf/config.toml:2: [network] peers: "127.0.0.1" is not host:port (e.g. 127.0.0.1:20200)');
    expect(() => parse('[network]\npeers = ["127.0.0.1:70000"]\n')).toThrow(/"127.0.0.1:70000" is not host:port/);
    expect(() => parse('[network]\npeers = ["127.0.0.1:1"]\npeer = 1\n')).toThrow('c/conf/config.toml:3: [network] peer: unknown key (known: peers, defaultGroup)');
    expect(() => parse('[netwrok]\n')).toThrow(/unknown section \[netwrok\]/);
    expect(() => parse('[network]\npeers = ["a:1"]\n[account]\naccountFileFormat = "p12"\n')).toThrow('c/conf/config.toml:4: [account] accountFileFormat: only "pem" is supported (got "p12")');
    expect(() => parse('[cryptoMaterial]\nuseSMCrypto = "yes"\n[network]\npeers = ["a:1"]\n')).toThrow(/useSMCrypto: must be "true" or "false"/);
  });
});
