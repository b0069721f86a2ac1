import { describe, expect, it } from 'vitest';
import { IniFile } from './ini-file.js';
import { parseGroupFiles } from './group-files.js';
import { parseNodeConfig } from './node-config.js';

const CONFIG = `[rpc]
    channel_listen_ip=127.0.0.1
    channel_listen_port=20200
    jsonrpc_listen_ip=127.0.0.1
    jsonrpc_listen_port=8545
[p2p]
    listen_ip=127.0.0.1
    listen_port=30300
    ; nodes to connect
    node.0=127.0.0.1:30300
    node.1=127.0.0.1:30301
    node.2=127.0.0.2:30300
[certificate_blacklist]
    ;crl.0=
[group]
    group_data_path=data/
    group_config_path=conf/
[network_security]
    data_path=conf/
    key=node.key
    cert=node.crt
    ca_cert=ca.crt
[chain]
    id=1
    sm_crypto=false
[compatibility]
    supported_version=2.11.0
[log]
    enable=true
    log_path=./log
    level=info
    max_log_file_size=200
    flush=true
`;

const ID = (c: string) => c.repeat(128);

describe('config.ini', () => {
  it('reads FISCO sections and keys, paths relative to the file', () => {
    const c = parseNodeConfig(CONFIG, '/chain/node0/config.ini');
    expect(c.rpc.jsonrpc).toEqual({ host: '127.0.0.1', port: 8545 });
    expect(c.rpc.channel).toEqual({ host: '127.0.0.1', port: 20200 });
    expect(c.p2p.listen).toEqual({ host: '127.0.0.1', port: 30300 });
    expect(c.p2p.peers).toEqual([
      { host: '127.0.0.1', port: 30300 },
      { host: '127.0.0.1', port: 30301 },
      { host: '127.0.0.2', port: 30300 },
    ]);
    expect(c.groupDataPath).toBe('/chain/node0/data');
    expect(c.security.key).toBe('/chain/node0/conf/node.key');
    expect(c.security.tlsCert).toBe('/chain/node0/conf/node.crt');
    expect(c.log).toMatchObject({ path: '/chain/node0/log', level: 'info', maxFileBytes: 200 * 1024 * 1024, enable: true });
    expect(c.version.text).toBe('2.11.0');
    expect(c.chainId).toBe(1n);
    expect(c.smCrypto).toBe(false);
  });

  it('reads [network_security] check_cert_issuer, true when absent (FISCO RPCInitializer default)', () => {
    expect(parseNodeConfig(CONFIG, '/chain/node0/config.ini').security.checkCertIssuer).toBe(true);
    const off = CONFIG.replace('ca_cert=ca.crt', 'ca_cert=ca.crt\n    check_cert_issuer=false');
    expect(parseNodeConfig(off, '/chain/node0/config.ini').security.checkCertIssuer).toBe(false);
  });

  it.each([
    ['jsonrpc_listen_port=8545', 'jsonrpc_listen_port=85x', /config\.ini:5: jsonrpc_listen_port: "85x" is not a port number/],
    ['jsonrpc_listen_port=8545', 'jsonrpc_listen_port=70000', /config\.ini:5: jsonrpc_listen_port: port 70000 is out of range 1\.\.65535/],
    ['node.1=127.0.0.1:30301', 'node.1=localhost:30301', /config\.ini:11: node\.1: "localhost:30301" is not ip:port/],
    ['node.1=127.0.0.1:30301', 'node.one=127.0.0.1:30301', /config\.ini:11: node\.one: peer keys are node\.0, node\.1/],
    ['supported_version=2.11.0', 'supported_version=3.0.0', /config\.ini:27: supported_version: .*2\.x/],
    ['level=info', 'level=loud', /config\.ini:31: level: "loud" must be one of/],
    ['    jsonrpc_listen_port=8545\n', '', /config\.ini: \[rpc\] jsonrpc_listen_port: missing/],
    ['sm_crypto=false', 'sm_crypto=maybe', /config\.ini:25: sm_crypto: "maybe" is not true or false/],
    ['ca_cert=ca.crt', 'ca_cert=ca.crt\n    check_cert_issuer=sometimes', /config\.ini:23: check_cert_issuer: "sometimes" is not true or false/],
    [';crl.0=', 'crl.0=abc', /config\.ini:14: crl\.0: "abc" is not a node id/],
    ['listen_port=30300', 'listen_port=8545', /the p2p \(8545\), channel \(20200\) and JSON-RPC \(8545\) ports must differ/],
    ['[chain]', 'chain', /config\.ini:23: "chain": expected key=value/],
    ['id=1', 'id=1\n    id=2', /config\.ini:25: id: given twice in \[chain\] \(first at line 24\)/],
  ])('%s → %s is refused with file:line: key: problem', (from, to, message) => {
    expect(CONFIG.includes(from)).toBe(true);
    expect(() => parseNodeConfig(CONFIG.replace(from, to), '/chain/node0/config.ini')).toThrow(message);
  });

  it('SM chains take the p2p TLS identity from tls_* keys and refuse a config without them', () => {
    const sm = CONFIG.replace('sm_crypto=false', 'sm_crypto=true').replace('key=node.key\n    cert=node.crt\n    ca_cert=ca.crt', 'key=gmnode.key\n    cert=gmnode.crt\n    ca_cert=gmca.crt');
    expect(() => parseNodeConfig(sm, '/c/config.ini')).toThrow(/\[network_security\] tls_key: missing/);
    const c = parseNodeConfig(sm.replace('ca_cert=gmca.crt', 'ca_cert=gmca.crt\n    tls_key=node.key\n    tls_cert=node.crt\n    tls_ca_cert=ca.crt'), '/c/config.ini');
    expect(c.security).toMatchObject({ key: '/c/conf/gmnode.key', tlsKey: '/c/conf/node.key', tlsCaCert: '/c/conf/ca.crt' });
  });

  it('raises a max_log_file_size under 100 MB to 100 MB, the least FISCO takes', () => {
    const size = (mb: string) => parseNodeConfig(CONFIG.replace('max_log_file_size=200', `max_log_file_size=${mb}`), '/c/config.ini').log.maxFileBytes;
    expect([size('1'), size('99'), size('100'), size('500')]).toEqual([100, 100, 100, 500].map((mb) => mb * 1024 * 1024));
  });

  it('takes the channel address from [rpc] listen_ip, the older key, when channel_listen_ip is not there', () => {
    const legacy = CONFIG.replace('channel_listen_ip=127.0.0.1', 'listen_ip=127.0.0.9');
    expect(parseNodeConfig(legacy, '/c/config.ini').rpc.channel).toEqual({ host: '127.0.0.9', port: 20200 });
    expect(parseNodeConfig(CONFIG.replace('    channel_listen_ip=127.0.0.1\n', ''), '/c/config.ini').rpc.channel.host).toBe('127.0.0.1');
  });

  it('an SM chain without key, cert and ca_cert keys reads gmnode.key, gmnode.crt and gmca.crt', () => {
    const sm = CONFIG.replace('sm_crypto=false', 'sm_crypto=true').replace('key=node.key\n    cert=node.crt\n    ca_cert=ca.crt', 'tls_key=node.key\n    tls_cert=node.crt\n    tls_ca_cert=ca.crt');
    expect(parseNodeConfig(sm, '/c/config.ini').security).toMatchObject({ key: '/c/conf/gmnode.key', cert: '/c/conf/gmnode.crt', caCert: '/c/conf/gmca.crt', tlsKey: '/c/conf/node.key' });
    const plain = CONFIG.replace('key=node.key\n    cert=node.crt\n    ca_cert=ca.crt', '');
    expect(parseNodeConfig(plain, '/c/config.ini').security).toMatchObject({ key: '/c/conf/node.key', cert: '/c/conf/node.crt', caCert: '/c/conf/ca.crt' });
  });

  it('black- and whitelists hold node ids', () => {
    const c = parseNodeConfig(CONFIG.replace(';crl.0=', `crl.0=${ID('A')}`).replace('[group]', `[certificate_whitelist]\n    cal.0=${ID('b')}\n[group]`), '/c/config.ini');
    expect([...c.blacklist]).toEqual([ID('a')]);
    expect([...c.whitelist]).toEqual([ID('b')]);
  });
});

describe('ini reader', () => {
  it('refuses keys outside a section and empty section names', () => {
    expect(() => IniFile.parse('a=1\n', 'f.ini')).toThrow('f.ini:1: a: key outside any [section]');
    expect(() => IniFile.parse('[]\n', 'f.ini')).toThrow('f.ini:1: empty section name');
    expect(() => IniFile.parse('[a]\n[a]\n', 'f.ini')).toThrow('f.ini:2: [a]: section already started at line 1');
  });
});

const GENESIS = `[consensus]
    consensus_type=pbft
    max_trans_num=1000
    consensus_timeout=3
    node.0=${ID('1')}
    node.1=${ID('2')}
[state]
    type=storage
[tx]
    gas_limit=300000000
[group]
    id=1
    timestamp=1700000000000
[evm]
    enable_free_storage=false
`;
const GROUP_INI = `[tx_pool]
    limit=150000
    memory_limit=512
`;

describe('group files', () => {
  it('reads the genesis and group ini', () => {
    const g = parseGroupFiles(GENESIS, 'conf/group.1.genesis', GROUP_INI, 'conf/group.1.ini', 1);
    expect(g.genesis).toMatchObject({ groupId: 1, consensusType: 'pbft', sealers: [ID('1'), ID('2')], txCountLimit: 1000, consensusTimeout: 3, timestamp: 1700000000000, stateType: 'storage' });
    expect(g.genesis.txGasLimit).toBe(300000000n);
    expect(g.poolLimit).toBe(150000);
    expect(g.poolMemoryLimit).toBe(512 * 1024 * 1024);
  });

  it.each([
    ['consensus_type=pbft', 'consensus_type=paxos', /group\.1\.genesis:2: consensus_type: "paxos" must be one of pbft, raft/],
    ['consensus_timeout=3', 'consensus_timeout=1', /group\.1\.genesis:4: consensus_timeout: 1 is out of range 3\.\./],
    [`node.1=${ID('2')}`, `node.1=${ID('1')}`, /group\.1\.genesis:6: node\.1: node id listed twice/],
    [`node.1=${ID('2')}`, 'node.1=xyz', /group\.1\.genesis:6: node\.1: "xyz" is not a node id/],
    ['id=1', 'id=2', /group\.1\.genesis:12: id: is 2 but the file is for group 1/],
    ['    timestamp=1700000000000\n', '', /group\.1\.genesis: \[group\] timestamp: missing/],
  ])('%s → %s is refused', (from, to, message) => {
    expect(() => parseGroupFiles(GENESIS.replace(from, to), 'conf/group.1.genesis', GROUP_INI, 'conf/group.1.ini', 1)).toThrow(message);
  });

  it('a genesis without sealers is refused', () => {
    const none = GENESIS.replace(/ {4}node\.\d=.*\n/g, '');
    expect(() => parseGroupFiles(none, 'g', GROUP_INI, 'i', 1)).toThrow('g: [consensus] node.0: missing: a group needs at least one sealer');
  });
});
