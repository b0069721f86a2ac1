import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSuite } from '../crypto/index.js';
import { fiscoAcceptsPrivateKey, generateKey, parseKeyDump, SM2_DIST_ID } from './certificates.js';
import { buildChain, BuildChainError, BuildChainUsageError, parseBuildChainArgs, systemOpenssl, type BuildChainOptions, type BuildChainResult, type OpensslRunner } from './index.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'twinchain-build-chain-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function options(args: string[]): BuildChainOptions {
  const o = parseBuildChainArgs(args);
  if (o === 'help') throw new Error('help');
  return o;
}

function openssl(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function hexOfBase64Url(text: string): string {
  return Buffer.from(text, 'base64url').toString('hex').padStart(64, '0');
}

/** Node's own reading of a secp256k1 key: x ‖ y of its public point. */
function secp256k1PublicHex(pem: string | Buffer): string {
  const jwk = createPrivateKey(pem).export({ format: 'jwk' });
  expect(jwk.crv).toBe('secp256k1');
  return hexOfBase64Url(jwk.x!) + hexOfBase64Url(jwk.y!);
}

function certPublicHex(pem: string | Buffer): string {
  const jwk = new X509Certificate(pem).publicKey.export({ format: 'jwk' });
  return hexOfBase64Url(jwk.x!) + hexOfBase64Url(jwk.y!);
}

function read(file: string): string {
  return readFileSync(file, 'utf8');
}

function ini(file: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = '';
  for (const raw of read(file).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) section = s[1]!;
    else values.set(`${section}.${line.slice(0, line.indexOf('='))}`, line.slice(line.indexOf('=') + 1));
  }
  return values;
}

function siblings(dir: string): string[] {
  return readdirSync(path.dirname(dir)).filter((n) => n.startsWith(path.basename(dir)));
}

describe('buildChain: -l 127.0.0.1:2,127.0.0.2:1 -T (a real openssl build)', () => {
  const out = path.join(scratch, 'ecdsa', 'nodes');
  const lines: string[] = [];
  let result: BuildChainResult;
  const nodeDirs = ['127.0.0.1/node0', '127.0.0.1/node1', '127.0.0.2/node0'];

  beforeAll(async () => {
    result = await buildChain(options(['-l', '127.0.0.1:2,127.0.0.2:1', '-T', '-o', out]), { out: (l) => lines.push(l), now: () => 1_700_000_000_123 });
  });

  it('writes FISCO build_chain.sh layout and nothing else next to it', () => {
    expect(result.outputDir).toBe(out);
    expect(siblings(out)).toEqual(['nodes']); // no .building-* folder, no build log
    expect(readdirSync(out).sort()).toEqual(['127.0.0.1', '127.0.0.2', 'cert']);
    expect(readdirSync(path.join(out, 'cert')).sort()).toEqual(['agency', 'ca.crt', 'ca.key', 'cert.cnf']);
    expect(readdirSync(path.join(out, 'cert/agency')).sort()).toEqual(['agency.crt', 'agency.key', 'ca.crt', 'cert.cnf']);
    expect(readdirSync(path.join(out, '127.0.0.1')).sort()).toEqual(['node0', 'node1', 'sdk', 'start_all.sh', 'stop_all.sh']);
    expect(readdirSync(path.join(out, '127.0.0.2')).sort()).toEqual(['node0', 'sdk', 'start_all.sh', 'stop_all.sh']);
    for (const ip of ['127.0.0.1', '127.0.0.2']) {
      expect(readdirSync(path.join(out, ip, 'sdk')).sort()).toEqual(['ca.crt', 'sdk.crt', 'sdk.key', 'sdk.publickey']);
      for (const script of ['start_all.sh', 'stop_all.sh']) expect(statSync(path.join(out, ip, script)).mode & 0o777).toBe(0o755);
    }
    for (const n of nodeDirs) {
      expect(readdirSync(path.join(out, n)).sort()).toEqual(['conf', 'config.ini', 'start.sh', 'stop.sh']);
      expect(readdirSync(path.join(out, n, 'conf')).sort()).toEqual(['ca.crt', 'group.1.genesis', 'group.1.ini', 'node.crt', 'node.key', 'node.nodeid']);
      for (const script of ['start.sh', 'stop.sh']) expect(statSync(path.join(out, n, script)).mode & 0o777).toBe(0o755);
      expect(statSync(path.join(out, n, 'conf/node.key')).mode & 0o077).toBe(0);
    }
    expect(result.nodes.map((n) => path.relative(out, n.dir))).toEqual(nodeDirs);
  });

  it('prints FISCO-style progress and summary lines ending with the absolute output dir', () => {
    expect(lines).toContain('Generating CA key...');
    expect(lines).toContain('Processing IP=127.0.0.2 Total=1 Agency=agency Groups=1');
    expect(lines).toContain('[INFO] Start Port      : 30300 20200 8545');
    expect(lines).toContain('[INFO] Server IP       : 127.0.0.1:2 127.0.0.2:1');
    expect(lines).toContain(`[INFO] Output Dir      : ${out}`);
    expect(lines).toContain(`[INFO] CA Path         : ${out}/cert/`);
    expect(lines).toContain('[INFO] Consensus Type  : pbft');
    expect(lines).toContain('[INFO] Supported Ver.  : 2.11.0');
    expect(lines.at(-1)).toBe(`[INFO] All completed. Files in ${out}`);
  });

  it('chains every node and sdk certificate CA -> agency -> leaf (openssl verify)', () => {
    const ca = path.join(out, 'cert/ca.crt');
    const agency = path.join(out, 'cert/agency/agency.crt');
    expect(openssl('verify', '-CAfile', ca, agency)).toMatchObject({ status: 0 });
    const leaves = [...nodeDirs.map((n) => path.join(out, n, 'conf/node.crt')), path.join(out, '127.0.0.1/sdk/sdk.crt'), path.join(out, '127.0.0.2/sdk/sdk.crt')];
    for (const leaf of leaves) {
      const r = openssl('verify', '-CAfile', ca, '-untrusted', agency, leaf);
      expect(r.stdout + r.stderr).toBe(`${leaf}: OK\n`);
      // without the agency certificate the chain is incomplete: the check above can fail
      expect(openssl('verify', '-CAfile', ca, leaf).status).not.toBe(0);
      // node.crt/sdk.crt carry the chain (leaf, agency, ca) as FISCO's do
      expect(read(leaf).match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
    }
    for (const n of nodeDirs) expect(read(path.join(out, n, 'conf/ca.crt'))).toBe(read(ca));
    const root = new X509Certificate(read(ca));
    expect(root.subject).toBe('CN=chain\nO=fisco-bcos\nOU=chain');
    expect(root.ca).toBe(true);
    expect(new X509Certificate(read(agency)).subject).toBe('CN=agency\nO=fisco-bcos\nOU=agency');
    expect(new X509Certificate(read(agency)).ca).toBe(true);
    expect(new X509Certificate(read(path.join(out, '127.0.0.1/node1/conf/node.crt'))).subject).toBe('CN=node1\nO=fisco-bcos\nOU=node');
    expect(new X509Certificate(read(path.join(out, '127.0.0.2/sdk/sdk.crt'))).subject).toBe('CN=sdk\nO=fisco-bcos\nOU=sdk');
    const days = (Date.parse(root.validTo) - Date.parse(root.validFrom)) / 86_400_000;
    expect(days).toBe(36500);
  });

  it('writes node.nodeid and sdk.publickey as the key files\' public keys (128 lower-case hex)', () => {
    const ids = nodeDirs.map((n) => read(path.join(out, n, 'conf/node.nodeid')));
    for (const [i, n] of nodeDirs.entries()) {
      expect(ids[i]).toMatch(/^[0-9a-f]{128}\n$/);
      expect(ids[i]!.trim()).toBe(secp256k1PublicHex(read(path.join(out, n, 'conf/node.key'))));
      expect(certPublicHex(read(path.join(out, n, 'conf/node.crt')))).toBe(ids[i]!.trim());
      expect(result.nodes[i]!.nodeId).toBe(ids[i]!.trim());
    }
    expect(new Set(ids).size).toBe(3);
    for (const ip of ['127.0.0.1', '127.0.0.2']) {
      const pub = read(path.join(out, ip, 'sdk/sdk.publickey'));
      expect(pub).toMatch(/^[0-9a-f]{128}\n$/);
      expect(pub.trim()).toBe(secp256k1PublicHex(read(path.join(out, ip, 'sdk/sdk.key'))));
    }
  });

  it('lists every node as a peer in every config.ini, with its own ports and listen ips', () => {
    const peers = { 'p2p.node.0': '127.0.0.1:30300', 'p2p.node.1': '127.0.0.1:30301', 'p2p.node.2': '127.0.0.2:30300' };
    const expected = [
      { ip: '127.0.0.1', listen: '127.0.0.1', p2p: '30300', channel: '20200', rpc: '8545' },
      { ip: '127.0.0.1', listen: '127.0.0.1', p2p: '30301', channel: '20201', rpc: '8546' },
      { ip: '127.0.0.2', listen: '127.0.0.2', p2p: '30300', channel: '20200', rpc: '8545' },
    ];
    for (const [i, n] of nodeDirs.entries()) {
      const c = ini(path.join(out, n, 'config.ini'));
      const e = expected[i]!;
      expect(Object.fromEntries([...c].filter(([k]) => k.startsWith('p2p.node.')))).toEqual(peers);
      expect(c.get('p2p.listen_ip')).toBe(e.ip);
      expect(c.get('p2p.listen_port')).toBe(e.p2p);
      expect(c.get('rpc.channel_listen_ip')).toBe(e.listen);
      expect(c.get('rpc.jsonrpc_listen_ip')).toBe(e.listen);
      expect(c.get('rpc.channel_listen_port')).toBe(e.channel);
      expect(c.get('rpc.jsonrpc_listen_port')).toBe(e.rpc);
      expect(c.get('log.level')).toBe('debug');
      expect(c.get('chain.id')).toBe('1');
      expect(c.get('chain.sm_crypto')).toBe('false');
      expect(c.get('compatibility.supported_version')).toBe('2.11.0');
      expect(c.get('network_security.data_path')).toBe('conf/');
      expect([c.get('network_security.key'), c.get('network_security.cert'), c.get('network_security.ca_cert')]).toEqual(['node.key', 'node.crt', 'ca.crt']);
      expect(c.has('network_security.tls_key')).toBe(false);
      expect(c.get('group.group_data_path')).toBe('data/');
    }
  });

  it('writes the same genesis everywhere, listing all 3 node ids in -l order, and FISCO group.1.ini keys', () => {
    const genesis = read(path.join(out, nodeDirs[0]!, 'conf/group.1.genesis'));
    for (const n of nodeDirs) expect(read(path.join(out, n, 'conf/group.1.genesis'))).toBe(genesis);
    const g = ini(path.join(out, nodeDirs[0]!, 'conf/group.1.genesis'));
    const ids = nodeDirs.map((n) => read(path.join(out, n, 'conf/node.nodeid')).trim());
    expect([g.get('consensus.node.0'), g.get('consensus.node.1'), g.get('consensus.node.2'), g.get('consensus.node.3')]).toEqual([...ids, undefined]);
    expect(g.get('consensus.consensus_type')).toBe('pbft');
    expect(g.get('consensus.max_trans_num')).toBe('1000');
    expect(g.get('consensus.consensus_timeout')).toBe('3');
    expect(g.get('state.type')).toBe('storage');
    expect(g.get('tx.gas_limit')).toBe('300000000');
    expect(g.get('group.id')).toBe('1');
    expect(g.get('group.timestamp')).toBe('1700000000123');
    expect(g.get('evm.enable_free_storage')).toBe('false');
    expect(g.has('consensus.min_elect_time')).toBe(false);
    const gi = ini(path.join(out, nodeDirs[0]!, 'conf/group.1.ini'));
    expect(gi.get('consensus.min_block_generation_time')).toBe('500');
    expect(gi.get('storage.type')).toBe('rocksdb');
    expect(gi.get('tx_pool.limit')).toBe('150000');
    expect(gi.get('tx_pool.memory_limit')).toBe('512');
    expect(gi.get('sync.gossip_peers_number')).toBe('3');
  });

  it('records absolute paths of this Node.js and this checkout\'s bin/twinchain.js in start.sh', () => {
    const start = read(path.join(out, nodeDirs[0]!, 'start.sh'));
    const bin = path.resolve(import.meta.dirname, '../../bin/twinchain.js');
    expect(existsSync(bin)).toBe(true);
    expect(start).toContain(`node_exe=\${TWINCHAIN_NODE_EXE:-'${process.execPath}'}`);
    expect(start).toContain(`twinchain_bin=\${TWINCHAIN_BIN:-'${bin}'}`);
    expect(start).not.toContain('.building-');
  });
});

describe('buildChain: -g -i -c raft -C 7 -v 2.4.0 (SM2/SM3 certificates)', () => {
  const out = path.join(scratch, 'sm', 'chain');
  let result: BuildChainResult;
  const lines: string[] = [];
  const distid = `distid:${SM2_DIST_ID}`;

  beforeAll(async () => {
    result = await buildChain(options(['-l', '127.0.0.1:2', '-g', '-i', '-c', 'raft', '-C', '7', '-v', '2.4.0', '-o', out]), { out: (l) => lines.push(l) });
  });

  it('writes the gm files beside the secp256k1 TLS identity', () => {
    expect(readdirSync(out).sort()).toEqual(['127.0.0.1', 'cert', 'gmcert']);
    expect(readdirSync(path.join(out, 'gmcert')).sort()).toEqual(['agency', 'gmca.crt', 'gmca.key', 'gmcert.cnf']);
    expect(readdirSync(path.join(out, 'gmcert/agency')).sort()).toEqual(['gmagency.crt', 'gmagency.key', 'gmca.crt', 'gmcert.cnf']);
    expect(readdirSync(path.join(out, '127.0.0.1/node1/conf')).sort()).toEqual([
      'ca.crt',
      'gmca.crt',
      'gmennode.crt',
      'gmennode.key',
      'gmnode.crt',
      'gmnode.key',
      'gmnode.nodeid',
      'group.1.genesis',
      'group.1.ini',
      'node.crt',
      'node.key',
    ]);
    expect(lines).toContain(`[INFO] Guomi CA Path   : ${out}/gmcert/`);
    expect(lines).toContain('[INFO] Crypto          : SM (SM2, SM3)');
  });

  it('issues SM2/SM3 certificates that verify with the SM2 distid (and not without it)', () => {
    const gmca = path.join(out, 'gmcert/gmca.crt');
    const gmagency = path.join(out, 'gmcert/agency/gmagency.crt');
    expect(openssl('x509', '-in', gmca, '-noout', '-text').stdout).toMatch(/Signature Algorithm: SM2-with-SM3/);
    expect(openssl('verify', '-vfyopt', distid, '-CAfile', gmca, gmca).status).toBe(0);
    expect(openssl('verify', '-vfyopt', distid, '-CAfile', gmca, gmagency).status).toBe(0);
    expect(openssl('verify', '-CAfile', gmca, gmagency).status).not.toBe(0);
    // OpenSSL 3.0's verify applies -vfyopt to the target certificate only, so each link is checked on its own
    for (const n of ['node0', 'node1']) {
      for (const leaf of ['gmnode.crt', 'gmennode.crt']) {
        const file = path.join(out, '127.0.0.1', n, 'conf', leaf);
        const r = openssl('verify', '-vfyopt', distid, '-partial_chain', '-CAfile', gmagency, file);
        expect(r.stdout + r.stderr).toBe(`${file}: OK\n`);
        expect(openssl('verify', '-partial_chain', '-CAfile', gmagency, file).status).not.toBe(0);
      }
      expect(read(path.join(out, '127.0.0.1', n, 'conf/gmnode.crt')).match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
      expect(read(path.join(out, '127.0.0.1', n, 'conf/gmca.crt'))).toBe(read(gmca));
    }
  });

  it('names the SM2 node id in gmnode.nodeid, the genesis and the TLS node.crt subjectAltName', () => {
    const sm = getSuite('sm');
    const ids: string[] = [];
    for (const n of ['node0', 'node1']) {
      const conf = path.join(out, '127.0.0.1', n, 'conf');
      const id = read(path.join(conf, 'gmnode.nodeid'));
      expect(id).toMatch(/^[0-9a-f]{128}\n$/);
      const priv = parseKeyDump(`${read(path.join(conf, 'gmnode.key'))}${openssl('pkey', '-in', path.join(conf, 'gmnode.key'), '-text', '-noout').stdout}`).privateHex;
      expect(Buffer.from(sm.keyPairFromPrivateKey(Buffer.from(priv, 'hex')).publicKey).toString('hex')).toBe(id.trim());
      const tls = new X509Certificate(read(path.join(conf, 'node.crt')));
      expect(tls.subjectAltName).toBe(`URI:fisco-node-id:${id.trim()}`);
      expect(certPublicHex(read(path.join(conf, 'node.crt')))).toBe(secp256k1PublicHex(read(path.join(conf, 'node.key'))));
      const r = openssl('verify', '-CAfile', path.join(out, 'cert/ca.crt'), '-untrusted', path.join(out, 'cert/agency/agency.crt'), path.join(conf, 'node.crt'));
      expect(r.status).toBe(0);
      ids.push(id.trim());
    }
    expect(result.nodes.map((n) => n.nodeId)).toEqual(ids);
    const g = ini(path.join(out, '127.0.0.1/node0/conf/group.1.genesis'));
    expect([g.get('consensus.node.0'), g.get('consensus.node.1')]).toEqual(ids);
    expect(g.get('consensus.consensus_type')).toBe('raft');
  });

  it('writes -i, -C, -v and the SM keys into config.ini', () => {
    const c = ini(path.join(out, '127.0.0.1/node1/config.ini'));
    expect(c.get('rpc.channel_listen_ip')).toBe('0.0.0.0');
    expect(c.get('rpc.jsonrpc_listen_ip')).toBe('0.0.0.0');
    expect(c.get('p2p.listen_ip')).toBe('127.0.0.1');
    expect(c.get('chain.id')).toBe('7');
    expect(c.get('chain.sm_crypto')).toBe('true');
    expect(c.get('compatibility.supported_version')).toBe('2.4.0');
    expect(c.get('log.level')).toBe('info');
    expect(
      ['key', 'cert', 'ca_cert', 'en_key', 'en_cert', 'tls_key', 'tls_cert', 'tls_ca_cert'].map((k) => c.get(`network_security.${k}`)),
    ).toEqual(['gmnode.key', 'gmnode.crt', 'gmca.crt', 'gmennode.key', 'gmennode.crt', 'node.key', 'node.crt', 'ca.crt']);
  });
});

describe('file modes, whatever the umask', () => {
  it('under umask 000: keys 0600, scripts 0755, certificates, configs and node ids 0644, folders 0755', () => {
    const out = path.join(scratch, 'umask000', 'nodes');
    const bin = path.resolve(import.meta.dirname, '../../bin/twinchain.js');
    const r = spawnSync('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, bin, 'build-chain', '-l', '127.0.0.1:1', '-g', '-o', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const modes: Record<string, string[]> = {};
    const walk = (p: string) => {
      const st = statSync(p);
      const mode = (st.mode & 0o777).toString(8);
      const rel = path.relative(out, p) || '.';
      (modes[mode] ??= []).push(st.isDirectory() ? `${rel}/` : rel);
      if (st.isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    };
    walk(out);
    expect(Object.keys(modes).sort()).toEqual(['600', '644', '755']);
    expect(modes['600']!.every((f) => f.endsWith('.key'))).toBe(true);
    expect(modes['600']).toEqual(expect.arrayContaining(['cert/ca.key', 'cert/agency/agency.key', '127.0.0.1/sdk/sdk.key', '127.0.0.1/node0/conf/node.key', '127.0.0.1/node0/conf/gmnode.key', 'gmcert/gmca.key']));
    expect(modes['644']).toEqual(expect.arrayContaining(['127.0.0.1/node0/config.ini', '127.0.0.1/node0/conf/group.1.genesis', '127.0.0.1/node0/conf/group.1.ini', '127.0.0.1/node0/conf/node.crt', '127.0.0.1/node0/conf/ca.crt', '127.0.0.1/node0/conf/gmnode.nodeid', 'cert/ca.crt']));
    expect(modes['644']!.some((f) => f.endsWith('/') || f.endsWith('.key') || f.endsWith('.sh'))).toBe(false);
    expect(modes['755']!.every((f) => f.endsWith('/') || f.endsWith('.sh'))).toBe(true);
    expect(modes['755']).toEqual(expect.arrayContaining(['./', '127.0.0.1/node0/conf/', '127.0.0.1/node0/start.sh', '127.0.0.1/start_all.sh']));
  }, 60_000);
});

describe('buildChain refusals and failures', () => {
  it('refuses an existing output directory and touches nothing', async () => {
    const dir = path.join(scratch, 'exists', 'nodes');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'mine.txt'), 'keep');
    let calls = 0;
    const counting: OpensslRunner = async () => {
      calls += 1;
      return '';
    };
    const error = await buildChain(options(['-l', '127.0.0.1:1', '-o', dir]), { openssl: counting }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildChainUsageError);
    expect((error as Error).message).toBe(`-o "${dir}": ${dir} already exists; remove it or choose another output directory`);
    expect(calls).toBe(0);
    expect(readdirSync(dir)).toEqual(['mine.txt']);
    expect(siblings(dir)).toEqual(['nodes']);
  });

  it('refuses bad options given in code before writing anything', async () => {
    const dir = path.join(scratch, 'bad-options', 'nodes');
    const good = options(['-l', '127.0.0.1:1', '-o', dir]);
    await expect(buildChain({ ...good, hosts: [{ ip: '127.0.0.1', count: 0 }] })).rejects.toThrow(BuildChainUsageError);
    await expect(buildChain({ ...good, ports: { p2p: 30300, channel: 30300, rpc: 8545 } })).rejects.toThrow(/overlap/);
    expect(existsSync(path.dirname(dir))).toBe(false);
  });

  it('leaves no output folder when openssl fails midway, and logs the failing command, its stderr and the stack', async () => {
    const dir = path.join(scratch, 'failing', 'nodes');
    const real = systemOpenssl();
    let calls = 0;
    // the 6th openssl run gets an option openssl refuses: a real failure with real stderr
    const failing: OpensslRunner = (args) => (++calls === 6 ? real([...args, '-no-such-option']) : real(args));
    const error = await buildChain(options(['-l', '127.0.0.1:3', '-o', dir]), { openssl: failing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildChainError);
    const log = `${dir}.build.log`;
    expect((error as BuildChainError).logFile).toBe(log);
    expect((error as Error).message).toMatch(/^build failed: openssl .*-no-such-option failed \(exit status 1\): .*; .* was not created; details in .*nodes\.build\.log$/);
    expect((error as Error).message).not.toContain('\n');
    expect(existsSync(dir)).toBe(false);
    expect(siblings(dir)).toEqual(['nodes.build.log']);
    const text = read(log);
    expect(text).toMatch(/^failing command: openssl .* -no-such-option$/m);
    expect(text).toMatch(/^stderr:\n.*no-such-option/m);
    expect(text).toMatch(/OpensslError: .*\n\s+at /);
    expect(text).toContain('"hosts":[{"ip":"127.0.0.1","count":3}]');

    // a later successful build removes the stale log
    await buildChain(options(['-l', '127.0.0.1:1', '-o', dir]));
    expect(siblings(dir)).toEqual(['nodes']);
  });

  it('reports an openssl that is not installed', async () => {
    const dir = path.join(scratch, 'no-openssl', 'nodes');
    const error = await buildChain(options(['-l', '127.0.0.1:1', '-o', dir]), { openssl: systemOpenssl('/nonexistent/openssl') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildChainError);
    expect((error as Error).message).toMatch(/^build failed: \/nonexistent\/openssl genpkey .* failed \(\/nonexistent\/openssl not found on PATH\)/);
    expect(existsSync(dir)).toBe(false);
    expect(read(`${dir}.build.log`)).toMatch(/^status: \/nonexistent\/openssl not found on PATH$/m);
  });
});

describe('node keys FISCO would regenerate', () => {
  it('accepts only 64-hex private keys not starting with 00', () => {
    expect(fiscoAcceptsPrivateKey('01'.padEnd(64, 'f'))).toBe(true);
    expect(fiscoAcceptsPrivateKey('ff'.padEnd(64, '0'))).toBe(true);
    expect(fiscoAcceptsPrivateKey('00'.padEnd(64, 'f'))).toBe(false);
    expect(fiscoAcceptsPrivateKey('ab'.padEnd(62, 'f'))).toBe(false);
    expect(fiscoAcceptsPrivateKey('ab'.padEnd(66, 'f'))).toBe(false);
  });

  it('regenerates such a key and writes only the accepted one', async () => {
    const real = systemOpenssl();
    const first = await real(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:secp256k1', '-text']);
    // a key FISCO keeps (openssl's own output is one FISCO regenerates about once in 128 keys)
    let second = '';
    for (let tries = 0; tries < 20 && !fiscoAcceptsPrivateKey(second && parseKeyDump(second).privateHex); tries++) {
      second = await real(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:secp256k1', '-text']);
    }
    // make the first dump look like a key whose scalar starts with 00
    const leading00 = first.replace(/priv:\n(\s+)[0-9a-f]{2}:/, 'priv:\n$100:');
    const dumps = [leading00, second];
    const notes: string[] = [];
    const file = path.join(scratch, 'regen.key');
    const key = await generateKey(async () => dumps.shift()!, 'secp256k1', file, true, (l) => notes.push(l));
    expect(dumps).toHaveLength(0);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/regenerated \(private key hex 00…, 64 chars\)/);
    expect(read(file)).toBe(parseKeyDump(second).pem);
    expect(key.publicHex).toBe(secp256k1PublicHex(read(file)));
  });
});
