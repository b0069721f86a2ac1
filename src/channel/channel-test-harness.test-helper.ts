// Shared by the channel tests (src/channel, test/channel): build_chain -R style certificates,
// a raw frame-level TLS client, and a connect helper that offers only secp256k1 as FISCO SDKs do.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { FrameDecoder, encodeFrame, type ChannelFrame } from './channel-frame.js';

// Certificates as build_chain -R lays them out: secp256k1 chain CA → agency → node / sdk,
// and an unrelated CA for a rogue client. Made once per process (17 openssl runs, in the first
// caller's folder) and kept in memory; later callers get the same files written into theirs, so
// every call in a process gets the same certificates, whose CA is unrelated to any a test's node
// or chain makes for itself.
let made: Map<string, Buffer> | undefined;

function makeIn(dir: string): Map<string, Buffer> {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  writeFileSync(path.join(dir, 'v3_ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  writeFileSync(path.join(dir, 'v3_leaf.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyAgreement\n');
  const key = (name: string) => ssl('ecparam', '-name', 'secp256k1', '-genkey', '-noout', '-out', `${name}.key`);
  const root = (name: string) => {
    key(name);
    ssl('req', '-new', '-x509', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-days', '30', '-out', `${name}.crt`);
  };
  const issue = (name: string, issuer: string, ext: string) => {
    key(name);
    ssl('req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-out', `${name}.csr`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.crt`, '-CAkey', `${issuer}.key`, '-CAcreateserial',
      '-days', '30', '-extfile', ext, '-out', `${name}.crt`);
  };
  root('ca');
  issue('agency', 'ca', 'v3_ca.ext');
  issue('node', 'agency', 'v3_leaf.ext');
  issue('sdk', 'agency', 'v3_leaf.ext');
  root('rogueca');
  issue('rogue', 'rogueca', 'v3_leaf.ext');
  const files = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && /\.(key|crt|csr|srl|ext)$/.test(e.name));
  return new Map(files.map((e) => [e.name, readFileSync(path.join(dir, e.name))]));
}

/** The certificates, written into `dir` (keys, certificates, CSRs and extension files). */
export function makeCerts(dir: string) {
  if (made) for (const [file, bytes] of made) writeFileSync(path.join(dir, file), bytes);
  else made = makeIn(dir);
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  return {
    ca: read('ca.crt'),
    node: { key: read('node.key'), cert: read('node.crt') + read('agency.crt') },
    sdk: { key: read('sdk.key'), cert: read('sdk.crt') + read('agency.crt') },
    rogue: { key: read('rogue.key'), cert: read('rogue.crt') },
  };
}

export type ChannelCerts = ReturnType<typeof makeCerts>;

export class RawClient {
  readonly frames: ChannelFrame[] = [];
  private readonly decoder = new FrameDecoder();
  private waiters: Array<() => void> = [];
  closed = false;
  readonly done: Promise<void>;

  constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.frames.push(...this.decoder.push(chunk));
      this.wake();
    });
    this.done = new Promise((resolve) => socket.on('close', () => { this.closed = true; this.wake(); resolve(); }));
    socket.on('error', () => {});
  }

  private wake() {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  send(type: number, seq: string, data: string | Uint8Array = '') {
    this.socket.write(encodeFrame({ type, seq, data }));
  }

  async next(seq: string, timeoutMs = 3000): Promise<ChannelFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex((f) => f.seq === seq);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      if (this.closed) throw new Error(`closed before a frame on seq ${seq}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame on seq ${seq}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  async request(type: number, seq: string, data: string): Promise<ChannelFrame> {
    this.send(type, seq, data);
    return this.next(seq);
  }
}

/** Connects; resolves with the client once TLS is up, or with the error / close that ended it. */
export function connect(port: number, auth?: { key: string; cert: string }): Promise<RawClient | Error> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ...auth,
      ecdhCurve: 'secp256k1',
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      rejectUnauthorized: false,
    });
    socket.once('secureConnect', () => resolve(new RawClient(socket)));
    socket.once('error', (error) => resolve(error));
    socket.once('close', () => resolve(new Error('closed')));
  });
}
