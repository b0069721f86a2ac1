import { writeFile } from 'node:fs/promises';
import type { OpensslRunner } from './openssl.js';

/** GM/T 0009's default SM2 signer id, which FISCO's TASSL certificates use. */
export const SM2_DIST_ID = '1234567812345678';
/** Certificate validity: FISCO build_chain's `-X` default (100 years). */
export const CERT_DAYS = 36500;

export type KeyAlgorithm = 'secp256k1' | 'sm2';

/** A private key as openssl generated it: the PKCS#8 PEM and the raw key halves in hex. */
export interface GeneratedKey {
  readonly pem: string;
  /** The private scalar as openssl prints it (`priv:`), lower-case hex. */
  readonly privateHex: string;
  /** The public key without the 04 prefix: 128 lower-case hex (a FISCO node id). */
  readonly publicHex: string;
}

/** The hex of a `label:` block in openssl's `-text` key dump (the indented lines under it). */
export function textBlockHex(text: string, label: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `${label}:`);
  if (start < 0) return undefined;
  let hex = '';
  for (const line of lines.slice(start + 1)) {
    if (!/^\s+[0-9a-fA-F:]+\s*$/.test(line)) break;
    hex += line.replace(/[\s:]/g, '');
  }
  return hex.toLowerCase();
}

/** Reads openssl's `genpkey -text` / `pkey -text` output: the PEM block, `priv:` and `pub:`. */
export function parseKeyDump(text: string): GeneratedKey {
  const pem = /-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n?/.exec(text)?.[0];
  const privateHex = textBlockHex(text, 'priv');
  const pub = textBlockHex(text, 'pub');
  if (!pem || !privateHex || !pub || pub.length !== 130 || !pub.startsWith('04')) {
    throw new Error(`unexpected openssl key output (want a PKCS#8 PEM, priv: and an uncompressed 65-byte pub:):\n${text}`);
  }
  return { pem: pem.endsWith('\n') ? pem : `${pem}\n`, privateHex, publicHex: pub.slice(2) };
}

/**
 * FISCO build_chain regenerates a node key whose private key, as openssl prints it, is not
 * 64 hex characters or starts with "00".
 */
export function fiscoAcceptsPrivateKey(privateHex: string): boolean {
  return privateHex.length === 64 && !privateHex.startsWith('00');
}

const GENPKEY: Record<KeyAlgorithm, readonly string[]> = {
  secp256k1: ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:secp256k1', '-pkeyopt', 'ec_param_enc:named_curve', '-text'],
  sm2: ['genpkey', '-algorithm', 'SM2', '-text'],
};

/**
 * Generates a key with `openssl genpkey` and writes its PEM to `file` (mode 600). With
 * `fiscoCheck`, keys FISCO would regenerate are regenerated (each retry is reported to `note`).
 */
export async function generateKey(
  run: OpensslRunner,
  algorithm: KeyAlgorithm,
  file: string,
  fiscoCheck: boolean,
  note: (line: string) => void = () => {},
): Promise<GeneratedKey> {
  for (let attempt = 1; ; attempt++) {
    const key = parseKeyDump(await run(GENPKEY[algorithm]));
    if (!fiscoCheck || fiscoAcceptsPrivateKey(key.privateHex)) {
      await writeFile(file, key.pem, { mode: 0o600 });
      return key;
    }
    note(`${file}: regenerated (private key hex ${key.privateHex.slice(0, 2)}…, ${key.privateHex.length} chars), attempt ${attempt}`);
    if (attempt >= 64) throw new Error(`${file}: 64 ${algorithm} keys in a row were ones FISCO regenerates; is openssl's random source broken?`);
  }
}

export interface IssueRequest {
  /** The subject's private key file. */
  readonly keyFile: string;
  /** e.g. /CN=node0/O=fisco-bcos/OU=node */
  readonly subject: string;
  /** The issuer; omitted for a self-signed root. */
  readonly issuer?: { readonly certFile: string; readonly keyFile: string };
  /** The openssl config file holding the extension section. */
  readonly configFile: string;
  readonly extensions: string;
  /** SM2 keys sign with SM3 and the GM/T 0009 signer id; otherwise ECDSA with SHA-256. */
  readonly sm: boolean;
  /** Extra extensions, e.g. subjectAltName=URI:fisco-node-id:… */
  readonly addExtensions?: readonly string[];
  readonly outFile: string;
}

/** Issues one X.509 certificate with `openssl req -new -x509 [-CA … -CAkey …]` (OpenSSL ≥ 3.0). */
export async function issueCertificate(run: OpensslRunner, r: IssueRequest): Promise<void> {
  await run([
    'req',
    '-new',
    '-x509',
    '-days',
    String(CERT_DAYS),
    '-key',
    r.keyFile,
    '-subj',
    r.subject,
    '-config',
    r.configFile,
    '-extensions',
    r.extensions,
    ...(r.sm ? ['-sm3', '-sigopt', `distid:${SM2_DIST_ID}`] : ['-sha256']),
    ...(r.issuer ? ['-CA', r.issuer.certFile, '-CAkey', r.issuer.keyFile] : []),
    ...(r.addExtensions ?? []).flatMap((e) => ['-addext', e]),
    '-out',
    r.outFile,
  ]);
}

/** The openssl config of the secp256k1 chain (cert/cert.cnf): FISCO's v3_req and v4_req, plus v3_ca for the root. */
export function certCnf(): string {
  return `# openssl config used by twinchain build-chain for the secp256k1 chain certificates
[ca]
default_ca=default_ca
[default_ca]
default_days = ${CERT_DAYS}
default_md = sha256

[req]
distinguished_name = req_distinguished_name
req_extensions = v3_req
[req_distinguished_name]
commonName = Common Name (eg, node0)
commonName_max = 64

# chain root (cert/ca.crt)
[ v3_ca ]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
basicConstraints = critical,CA:true

# node and sdk certificates
[ v3_req ]
basicConstraints = CA:FALSE
keyUsage = nonRepudiation, digitalSignature, keyEncipherment

# agency certificates
[ v4_req ]
basicConstraints = CA:TRUE
`;
}

/** The openssl config of the SM2/SM3 chain (gmcert/gmcert.cnf), with FISCO's extension sections. */
export function gmCertCnf(): string {
  return `# openssl config used by twinchain build-chain for the SM2/SM3 (guomi) certificates
[req]
distinguished_name = req_distinguished_name
default_md = sm3
string_mask = utf8only
[req_distinguished_name]
commonName = Common Name (eg, node0)
commonName_max = 64

# gmca.crt
[ v3_ca ]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always,issuer
basicConstraints = CA:true
keyUsage = cRLSign, keyCertSign

# gmagency.crt
[ v3_agency_root ]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always,issuer
basicConstraints = CA:true
keyUsage = cRLSign, keyCertSign

# gmnode.crt (signing)
[ v3_req ]
basicConstraints = CA:FALSE
keyUsage = nonRepudiation, digitalSignature

# gmennode.crt (encryption)
[ v3enc_req ]
basicConstraints = CA:FALSE
keyUsage = keyAgreement, keyEncipherment, dataEncipherment
`;
}
