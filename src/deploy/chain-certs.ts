// The certificate chains build-chain lays out (chain CA → agency → node / sdk), as steps both
// build-chain and `twinchain serve` (its channel ports' TLS identities) use.
import { appendFile, copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { certCnf, generateKey, issueCertificate, type GeneratedKey, type IssueRequest } from './certificates.js';
import { applyFileModes } from './file-modes.js';
import { systemOpenssl, type OpensslRunner } from './openssl.js';

export interface RootSpec {
  readonly sm: boolean;
  /** cert/ or gmcert/, and its agency/ folder. */
  readonly dir: string;
  readonly agencyDir: string;
  readonly cnf: string;
  readonly cnfText: string;
  readonly ca: { readonly name: string; readonly subject: string };
  readonly agency: { readonly name: string; readonly subject: string; readonly extensions: string };
}

/** The secp256k1 root of build_chain's `cert/` folder: ca.crt/ca.key, cert.cnf and agency/agency.crt. */
export function ecdsaRootSpec(certDir: string): RootSpec {
  return {
    sm: false,
    dir: certDir,
    agencyDir: path.join(certDir, 'agency'),
    cnf: path.join(certDir, 'cert.cnf'),
    cnfText: certCnf(),
    ca: { name: 'ca', subject: '/CN=chain/O=fisco-bcos/OU=chain' },
    agency: { name: 'agency', subject: '/CN=agency/O=fisco-bcos/OU=agency', extensions: 'v4_req' },
  };
}

/** A chain CA and the agency certificate it signs (secp256k1, or SM2/SM3), with the copies FISCO keeps beside the agency. */
export async function makeRoot(openssl: OpensslRunner, spec: RootSpec): Promise<void> {
  const algorithm = spec.sm ? 'sm2' : 'secp256k1';
  const caKey = path.join(spec.dir, `${spec.ca.name}.key`);
  const caCrt = path.join(spec.dir, `${spec.ca.name}.crt`);
  const agencyKey = path.join(spec.agencyDir, `${spec.agency.name}.key`);
  await mkdir(spec.agencyDir, { recursive: true });
  await writeFile(spec.cnf, spec.cnfText);
  await generateKey(openssl, algorithm, caKey, false);
  await issueCertificate(openssl, { keyFile: caKey, subject: spec.ca.subject, configFile: spec.cnf, extensions: 'v3_ca', sm: spec.sm, outFile: caCrt });
  await generateKey(openssl, algorithm, agencyKey, false);
  await issueCertificate(openssl, {
    keyFile: agencyKey,
    subject: spec.agency.subject,
    issuer: { certFile: caCrt, keyFile: caKey },
    configFile: spec.cnf,
    extensions: spec.agency.extensions,
    sm: spec.sm,
    outFile: path.join(spec.agencyDir, `${spec.agency.name}.crt`),
  });
  await copyFile(caCrt, path.join(spec.agencyDir, `${spec.ca.name}.crt`));
  await copyFile(spec.cnf, path.join(spec.agencyDir, path.basename(spec.cnf)));
}

/** Issues a certificate and appends the issuer chain (agency, CA) to it, as FISCO's node.crt and sdk.crt hold. */
export async function issueChained(openssl: OpensslRunner, request: IssueRequest, chain: readonly string[]): Promise<void> {
  await issueCertificate(openssl, request);
  for (const pem of chain) await appendFile(request.outFile, pem);
}

/** The secp256k1 agency that signs node and sdk certificates, read from a made root. */
export interface EcdsaAgency {
  readonly caCrt: string;
  readonly cnf: string;
  readonly issuer: { readonly certFile: string; readonly keyFile: string };
  /** agency.crt and ca.crt, appended to every certificate it issues. */
  readonly chain: readonly string[];
}

export async function readEcdsaAgency(spec: RootSpec): Promise<EcdsaAgency> {
  const caCrt = path.join(spec.dir, `${spec.ca.name}.crt`);
  const certFile = path.join(spec.agencyDir, `${spec.agency.name}.crt`);
  return {
    caCrt,
    cnf: spec.cnf,
    issuer: { certFile, keyFile: path.join(spec.agencyDir, `${spec.agency.name}.key`) },
    chain: [await readFile(certFile, 'utf8'), await readFile(caCrt, 'utf8')],
  };
}

/** build_chain's `sdk/` folder: sdk.key, sdk.crt (with the agency and CA appended), ca.crt and sdk.publickey. */
export async function issueSdkCertificate(openssl: OpensslRunner, dir: string, agency: EcdsaAgency): Promise<GeneratedKey> {
  await mkdir(dir, { recursive: true });
  const key = await generateKey(openssl, 'secp256k1', path.join(dir, 'sdk.key'), false);
  await issueChained(
    openssl,
    { keyFile: path.join(dir, 'sdk.key'), subject: '/CN=sdk/O=fisco-bcos/OU=sdk', issuer: agency.issuer, configFile: agency.cnf, extensions: 'v3_req', sm: false, outFile: path.join(dir, 'sdk.crt') },
    agency.chain,
  );
  await copyFile(agency.caCrt, path.join(dir, 'ca.crt'));
  await writeFile(path.join(dir, 'sdk.publickey'), `${key.publicHex}\n`);
  return key;
}

/**
 * A node's secp256k1 TLS identity in its `conf/` folder: node.key (one FISCO would not
 * regenerate), node.crt (with the agency and CA appended) and ca.crt.
 */
export async function issueNodeCertificate(
  openssl: OpensslRunner,
  conf: string,
  name: string,
  agency: EcdsaAgency,
  extra: { readonly addExtensions?: readonly string[]; readonly note?: (line: string) => void } = {},
): Promise<GeneratedKey> {
  await mkdir(conf, { recursive: true });
  const key = await generateKey(openssl, 'secp256k1', path.join(conf, 'node.key'), true, extra.note);
  await issueChained(
    openssl,
    {
      keyFile: path.join(conf, 'node.key'),
      subject: `/CN=${name}/O=fisco-bcos/OU=node`,
      issuer: agency.issuer,
      configFile: agency.cnf,
      extensions: 'v3_req',
      sm: false,
      ...(extra.addExtensions ? { addExtensions: extra.addExtensions } : {}),
      outFile: path.join(conf, 'node.crt'),
    },
    agency.chain,
  );
  await copyFile(agency.caCrt, path.join(conf, 'ca.crt'));
  return key;
}

/** PEM texts of one TLS identity: its key, its certificate chain and the CA its peers must chain to. */
export interface TlsIdentity {
  readonly key: string;
  readonly cert: string;
  readonly ca: string;
}

export interface ChannelCertificates {
  /** The folder: cert/ (chain CA and agency), <node>/conf/ per node, sdk/. */
  readonly dir: string;
  /** build_chain's sdk/ layout: ca.crt, sdk.crt, sdk.key (what `console init --sdk` takes). */
  readonly sdkDir: string;
  /** Each node's channel TLS identity, in the order of the names given. */
  readonly nodes: ReadonlyArray<{ readonly name: string } & TlsIdentity>;
  /** True when every file was already there (an earlier run's folder) and nothing was generated. */
  readonly reused: boolean;
}

async function present(...files: string[]): Promise<boolean> {
  try {
    for (const f of files) if (!(await stat(f)).isFile()) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * The channel-port certificates of a local chain in `dir`, as build_chain -R makes them
 * (secp256k1 chain CA → agency → one node certificate per name and one sdk certificate),
 * generated with the system openssl. Whatever an earlier call already left in `dir` is kept,
 * so the same folder keeps working for SDKs across runs; only what is missing is generated.
 */
export async function ensureChannelCertificates(dir: string, nodeNames: readonly string[], openssl: OpensslRunner = systemOpenssl()): Promise<ChannelCertificates> {
  const root = ecdsaRootSpec(path.join(dir, 'cert'));
  const sdkDir = path.join(dir, 'sdk');
  // a new root invalidates every certificate an earlier one signed
  const newRoot = !(await present(path.join(root.dir, 'ca.crt'), path.join(root.agencyDir, 'agency.crt'), path.join(root.agencyDir, 'agency.key'), root.cnf));
  if (newRoot) await makeRoot(openssl, root);
  const agency = await readEcdsaAgency(root);
  const kept = async (folder: string, files: readonly string[]) => !newRoot && (await present(...files.map((f) => path.join(folder, f))));
  let reused = !newRoot;
  const jobs: Promise<unknown>[] = [];
  if (!(await kept(sdkDir, ['ca.crt', 'sdk.crt', 'sdk.key']))) {
    reused = false;
    jobs.push(issueSdkCertificate(openssl, sdkDir, agency));
  }
  for (const name of nodeNames) {
    const conf = path.join(dir, name, 'conf');
    if (await kept(conf, ['ca.crt', 'node.crt', 'node.key'])) continue;
    reused = false;
    jobs.push(issueNodeCertificate(openssl, conf, name, agency));
  }
  // wait for every job even when one fails, so no openssl child writes after the caller gives up
  const settled = await Promise.allSettled(jobs);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  if (!reused) for (const folder of [path.join(dir, 'cert'), sdkDir, ...nodeNames.map((name) => path.join(dir, name))]) await applyFileModes(folder);
  const nodes = [];
  for (const name of nodeNames) {
    const conf = path.join(dir, name, 'conf');
    const [key, cert, ca] = await Promise.all(['node.key', 'node.crt', 'ca.crt'].map((f) => readFile(path.join(conf, f), 'utf8')));
    nodes.push({ name, key: key!, cert: cert!, ca: ca! });
  }
  return { dir, sdkDir, nodes, reused };
}
