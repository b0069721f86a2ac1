// The Dockerfile's image, built and run where a Docker daemon answers: `swarm --shard 0/2` and
// 1/2 in two containers, their --json-stdout lines merged by a third (`swarm merge -`). Without a
// daemon (as on the development machines, which have the docker command but no engine) the test
// is skipped and its name says why.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { parseShardResultLine } from '../../src/sim/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Why there is no Docker engine to build with, or undefined when there is one. */
function missingDocker(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (info.error) return `no docker command (${info.error.message})`;
  if (info.status !== 0) return `no Docker daemon: docker info says ${JSON.stringify(`${info.stderr}${info.stdout}`.trim().split('\n').at(-1))}`;
  return undefined;
}

function docker(args: string[], input?: string, timeoutMs = 5 * 60_000): string {
  const run = spawnSync('docker', args, { encoding: 'utf8', timeout: timeoutMs, input, maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`docker ${args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  return run.stdout;
}

const missing = missingDocker();
const NAME = 'the Dockerfile builds an image that runs swarm --shard 0/2 and 1/2, and merges their result lines';

it.skipIf(missing !== undefined)(missing === undefined ? NAME : `${NAME} (skipped: ${missing})`, () => {
  const tag = `twinchain-test:${randomBytes(4).toString('hex')}`;
  try {
    docker(['build', '--build-arg', 'TWINCHAIN_COMMIT=docker-test', '-t', tag, ROOT], undefined, 20 * 60_000);
    const lines = [0, 1].map((i) => {
      const stdout = docker(['run', '--rm', tag, 'swarm', 'scenarios/pbft-swarm.yaml', '--seeds', '2', '--jobs', '1', '--shard', `${i}/2`, '--json-stdout', '--exit-zero']);
      const result = parseShardResultLine(stdout.trim());
      expect(result?.shard).toEqual({ index: i, count: 2 });
      expect(result?.runs.map((r) => r.seed)).toEqual([i + 1]);
      expect(result?.twinchain.commit).toBe('docker-test');
      return stdout.trim();
    });
    const merged = docker(['run', '--rm', '-i', tag, 'swarm', 'merge', '-', '--out', '/tmp/merged'], `${lines.join('\n')}\n`);
    expect(merged).toMatch(/^pbft-swarm: 2 shards of 2 swarm runs from seed 1, merged \(twinchain [^,]+, commit docker-test;/);
    expect(merged).toMatch(/^ {2}seed {4}1 /m);
    expect(merged).toMatch(/^ {2}seed {4}2 /m);
    // the image has openssl, which build-chain and serve use
    expect(docker(['run', '--rm', '--entrypoint', 'openssl', tag, 'version'])).toMatch(/^OpenSSL 3\./);
  } finally {
    spawnSync('docker', ['rmi', '-f', tag], { stdio: 'ignore', timeout: 60_000 });
  }
}, 30 * 60_000);
