import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateKey, gmCertCnf, issueCertificate } from './certificates.js';
import { ecdsaRootSpec, issueChained, issueNodeCertificate, issueSdkCertificate, makeRoot, readEcdsaAgency } from './chain-certs.js';
import { configIni, groupGenesis, groupIni, planNodes, type PlannedNode } from './config-files.js';
import { applyFileModes } from './file-modes.js';
import { OpensslError, systemOpenssl, type OpensslRunner } from './openssl.js';
import { BuildChainUsageError, checkBuildChainOptions, type BuildChainOptions } from './options.js';
import { defaultScriptTargets, startAllSh, startSh, stopAllSh, stopSh, type ScriptTargets } from './scripts.js';

/** What a build takes from its surroundings; every field has a default. */
export interface BuildChainEnv {
  /** Where a relative -o is resolved (default process.cwd()). */
  readonly cwd?: string;
  /** Runs openssl (default: the system `openssl` binary). */
  readonly openssl?: OpensslRunner;
  /** Receives the progress and summary lines FISCO's build_chain.sh prints (default: dropped). */
  readonly out?: (line: string) => void;
  /** `[group] timestamp` of the genesis, in ms (default Date.now()). */
  readonly now?: () => number;
  /** What start.sh runs (default process.execPath and this repository's bin/twinchain.js). */
  readonly scriptTargets?: ScriptTargets;
  /**
   * The command line's: on SIGINT or SIGTERM during the build, remove the temporary folder, say
   * so on stderr and exit with status 130, so an interrupted build leaves nothing behind.
   */
  readonly cleanUpOnSignal?: boolean;
}

export interface BuiltNode extends PlannedNode {
  /** Absolute path of the node's folder (config.ini, start.sh, stop.sh, conf/). */
  readonly dir: string;
  /** The node id the chain knows it by: secp256k1 public key, or the SM2 one on SM chains. */
  readonly nodeId: string;
}

export interface BuildChainResult {
  /** Absolute path of the output folder. */
  readonly outputDir: string;
  readonly nodes: readonly BuiltNode[];
  readonly elapsedMs: number;
}

/** A build that failed after it started; nothing is left at the output path, the details are in `logFile`. */
export class BuildChainError extends Error {
  override readonly name = 'BuildChainError';
  constructor(
    message: string,
    readonly logFile: string | undefined,
  ) {
    super(message);
  }
}

const RULE = '==============================================================';

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * `twinchain build-chain`: certificates, config files and scripts of a FISCO BCOS 2.x chain
 * in FISCO build_chain.sh's layout. Built in a temporary sibling folder that is renamed to
 * the output path only when everything succeeded. Throws BuildChainUsageError (nothing
 * written) for bad options or an existing output path, BuildChainError (log at
 * `<output>.build.log`) when the build itself fails.
 */
export async function buildChain(options: BuildChainOptions, env: BuildChainEnv = {}): Promise<BuildChainResult> {
  const started = performance.now();
  checkBuildChainOptions(options);
  const out = env.out ?? (() => {});
  const outputDir = path.resolve(env.cwd ?? process.cwd(), options.outputDir);
  if (await exists(outputDir)) {
    throw new BuildChainUsageError(`-o "${options.outputDir}": ${outputDir} already exists; remove it or choose another output directory`);
  }
  const parent = path.dirname(outputDir);
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    throw new BuildChainUsageError(`-o "${options.outputDir}": cannot create ${parent}: ${(error as Error).message}`);
  }

  const logFile = `${outputDir}.build.log`;
  const trail: string[] = [];
  const baseRunner = env.openssl ?? systemOpenssl();
  const openssl: OpensslRunner = async (args) => {
    trail.push(`openssl ${args.join(' ')}`);
    return baseRunner(args);
  };
  let work: string | undefined;
  const interrupted = (signal: NodeJS.Signals) => {
    const partial = work ?? readdirSync(path.dirname(outputDir)).map((f) => path.join(path.dirname(outputDir), f)).find((f) => f.startsWith(`${outputDir}.building-${process.pid}-`));
    if (partial) {
      // File writes already queued in libuv's thread pool (and openssl children) go on writing
      // into the folder while this process is alive, so it is removed after the exit, by a
      // detached shell that tries for a few seconds.
      spawn('sh', ['-c', 'for i in 1 2 3 4 5; do sleep 1; rm -rf -- "$1"; done', 'sh', partial], { detached: true, stdio: 'ignore' }).unref();
    }
    process.stderr.write(`twinchain build-chain: interrupted (${signal}); ${outputDir} was not created${partial ? ` and the partial build ${partial} is being removed` : ''}\n`);
    process.exit(130);
  };
  if (env.cleanUpOnSignal) {
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
  }
  try {
    work = await mkdtemp(`${outputDir}.building-${process.pid}-`);
    const nodes = await generate(options, work, outputDir, openssl, out, (line) => trail.push(line), env);
    if (await exists(outputDir)) throw new Error(`${outputDir} appeared while the chain was being built; the build is discarded`);
    // explicit modes whatever the umask (the folder is mkdtemp's 0700 until now, so nobody else saw it)
    await applyFileModes(work);
    await rename(work, outputDir);
    work = undefined;
    await rm(logFile, { force: true }); // a failed earlier build's log no longer applies
    printSummary(options, outputDir, out);
    return { outputDir, nodes, elapsedMs: performance.now() - started };
  } catch (error) {
    const partial = work;
    if (partial) await rm(partial, { recursive: true, force: true }).catch(() => {});
    const reason = error instanceof OpensslError ? error.message : (error as Error).message?.split('\n')[0] ?? String(error);
    let logged: string | undefined = logFile;
    try {
      await writeFile(logFile, buildLog(options, outputDir, partial, error, trail));
      await chmod(logFile, 0o644);
    } catch {
      logged = undefined;
    }
    throw new BuildChainError(
      `build failed: ${reason}; ${outputDir} was not created; ${logged ? `details in ${logged}` : `and the log ${logFile} could not be written`}`,
      logged,
    );
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

function buildLog(options: BuildChainOptions, outputDir: string, partial: string | undefined, error: unknown, trail: readonly string[]): string {
  const lines = [
    `twinchain build-chain failed at ${new Date().toISOString()}`,
    `output directory: ${outputDir} (not created${partial ? `; the partial build in ${partial} was removed` : ''})`,
    `options: ${JSON.stringify(options)}`,
    '',
  ];
  if (error instanceof OpensslError) {
    lines.push(`failing command: ${error.command}`, `status: ${error.exitStatus}`, 'stderr:', error.stderr.trimEnd() || '(empty)', '');
  }
  lines.push('error:', error instanceof Error ? (error.stack ?? error.message) : String(error), '', 'steps run (openssl commands in start order):', ...trail, '');
  return lines.join('\n');
}

function printSummary(options: BuildChainOptions, outputDir: string, out: (line: string) => void): void {
  out(RULE);
  out(`[INFO] Start Port      : ${options.ports.p2p} ${options.ports.channel} ${options.ports.rpc}`);
  out(`[INFO] Server IP       : ${options.hosts.map((h) => `${h.ip}:${h.count}`).join(' ')}`);
  out(`[INFO] Output Dir      : ${outputDir}`);
  out(`[INFO] CA Path         : ${outputDir}/cert/`);
  if (options.sm) out(`[INFO] Guomi CA Path   : ${outputDir}/gmcert/`);
  out(`[INFO] Consensus Type  : ${options.consensus}`);
  out(`[INFO] Crypto          : ${options.sm ? 'SM (SM2, SM3)' : 'ECDSA (secp256k1, keccak256)'}`);
  out(`[INFO] Supported Ver.  : ${options.supportedVersion}`);
  out(RULE);
  out(`[INFO] Execute start_all.sh in the directory named by IP to start its nodes.`);
  out(`e.g.  bash ${outputDir}/${options.hosts[0]!.ip}/start_all.sh`);
  out(RULE);
  out(`[INFO] All completed. Files in ${outputDir}`);
}

async function writeExecutable(file: string, text: string): Promise<void> {
  await writeFile(file, text);
  await chmod(file, 0o755);
}

async function generate(
  options: BuildChainOptions,
  root: string,
  finalDir: string,
  openssl: OpensslRunner,
  out: (line: string) => void,
  note: (line: string) => void,
  env: BuildChainEnv,
): Promise<BuiltNode[]> {
  const sm = options.sm;
  const processing = () => {
    for (const h of options.hosts) out(`Processing IP=${h.ip} Total=${h.count} Agency=agency Groups=1`);
  };
  if (options.listenAll) out('[WARN] channel_listen_ip and jsonrpc_listen_ip are 0.0.0.0: every interface, which is unsafe.');

  // chain CA and agency (secp256k1), and with -g the SM2/SM3 ones
  const cert = path.join(root, 'cert');
  const gmcert = path.join(root, 'gmcert');
  const gmagency = path.join(gmcert, 'agency');
  const gmcnf = path.join(gmcert, 'gmcert.cnf');
  out(RULE);
  out('Generating CA key...');
  if (sm) out('Generating Guomi CA key...');
  const ecdsaSpec = ecdsaRootSpec(cert);
  const ecdsaRoot = makeRoot(openssl, ecdsaSpec);
  const smRoot = sm
    ? makeRoot(openssl, {
        sm: true,
        dir: gmcert,
        agencyDir: gmagency,
        cnf: gmcnf,
        cnfText: gmCertCnf(),
        ca: { name: 'gmca', subject: '/CN=gmchain/O=fisco-bcos/OU=chain' },
        agency: { name: 'gmagency', subject: '/CN=agency_son/O=fisco-bcos/OU=agency', extensions: 'v3_agency_root' },
      })
    : Promise.resolve();
  // both chains run at once; wait for both even when one fails, so no openssl writes after the cleanup
  const roots = await Promise.allSettled([ecdsaRoot, smRoot]);
  for (const r of roots) if (r.status === 'rejected') throw r.reason;

  const ecdsaAgency = await readEcdsaAgency(ecdsaSpec);
  const gmcaPem = sm ? await readFile(path.join(gmcert, 'gmca.crt'), 'utf8') : '';
  const gmagencyPem = sm ? await readFile(path.join(gmagency, 'gmagency.crt'), 'utf8') : '';
  const gmagencyIssuer = { certFile: path.join(gmagency, 'gmagency.crt'), keyFile: path.join(gmagency, 'gmagency.key') };

  out(RULE);
  out('Generating keys and certificates ...');
  processing();

  const sdk = (ip: string) => issueSdkCertificate(openssl, path.join(root, ip, 'sdk'), ecdsaAgency);

  const keysOf = async (node: PlannedNode): Promise<string> => {
    const name = `node${node.index}`;
    const conf = path.join(root, node.ip, name, 'conf');
    await mkdir(conf, { recursive: true });
    let smNodeId: string | undefined;
    if (sm) {
      const signing = (async () => {
        const key = await generateKey(openssl, 'sm2', path.join(conf, 'gmnode.key'), true, note);
        await issueChained(
          openssl,
          { keyFile: path.join(conf, 'gmnode.key'), subject: `/CN=${name}/O=fisco-bcos/OU=node`, issuer: gmagencyIssuer, configFile: gmcnf, extensions: 'v3_req', sm: true, outFile: path.join(conf, 'gmnode.crt') },
          [gmagencyPem, gmcaPem],
        );
        await writeFile(path.join(conf, 'gmnode.nodeid'), `${key.publicHex}\n`);
        return key.publicHex;
      })();
      const encryption = (async () => {
        await generateKey(openssl, 'sm2', path.join(conf, 'gmennode.key'), false);
        await issueCertificate(openssl, {
          keyFile: path.join(conf, 'gmennode.key'),
          subject: `/CN=${name}/O=fisco-bcos/OU=ennode`,
          issuer: gmagencyIssuer,
          configFile: gmcnf,
          extensions: 'v3enc_req',
          sm: true,
          outFile: path.join(conf, 'gmennode.crt'),
        });
      })();
      const [s, e] = await Promise.allSettled([signing, encryption]);
      if (s.status === 'rejected') throw s.reason;
      if (e.status === 'rejected') throw e.reason;
      smNodeId = s.value;
      await copyFile(path.join(gmcert, 'gmca.crt'), path.join(conf, 'gmca.crt'));
    }
    // the secp256k1 identity: the node's own on ECDSA chains, the p2p TLS one on SM chains
    const key = await issueNodeCertificate(openssl, conf, name, ecdsaAgency, {
      note,
      ...(smNodeId ? { addExtensions: [`subjectAltName=URI:fisco-node-id:${smNodeId}`] } : {}),
    });
    if (!sm) await writeFile(path.join(conf, 'node.nodeid'), `${key.publicHex}\n`);
    return smNodeId ?? key.publicHex;
  };

  const planned = planNodes(options);
  const jobs = [...options.hosts.map((h) => sdk(h.ip)), ...planned.map(keysOf)];
  const settled = await Promise.allSettled(jobs);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const nodeIds = settled.slice(options.hosts.length).map((r) => (r as PromiseFulfilledResult<string>).value);

  out(RULE);
  out('Generating configuration files ...');
  processing();
  const genesis = groupGenesis(options, nodeIds, (env.now ?? Date.now)());
  const targets = env.scriptTargets ?? defaultScriptTargets();
  const built: BuiltNode[] = [];
  for (const node of planned) {
    const rel = path.join(node.ip, `node${node.index}`);
    const dir = path.join(root, rel);
    await writeFile(path.join(dir, 'config.ini'), configIni(options, node, planned));
    await writeFile(path.join(dir, 'conf', 'group.1.genesis'), genesis);
    await writeFile(path.join(dir, 'conf', 'group.1.ini'), groupIni());
    await writeExecutable(path.join(dir, 'start.sh'), startSh(targets));
    await writeExecutable(path.join(dir, 'stop.sh'), stopSh());
    built.push({ ...node, dir: path.join(finalDir, rel), nodeId: nodeIds[node.seq]! });
  }
  for (const h of options.hosts) {
    await writeExecutable(path.join(root, h.ip, 'start_all.sh'), startAllSh());
    await writeExecutable(path.join(root, h.ip, 'stop_all.sh'), stopAllSh());
  }
  return built;
}
