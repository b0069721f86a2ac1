// The files that run swarm shards on engines teams already have: the Kubernetes Indexed Job and
// the GitHub Actions workflow are checked against their published schemas (kubernetes-models
// validates with the Kubernetes OpenAPI schema; @action-validator/core with SchemaStore's
// github-workflow schema), and the twinchain command line in each is parsed by the CLI's own
// option parser, as the pod or runner would run it.
import { validateWorkflow } from '@action-validator/core';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSwarmArgs, SHARD_COUNT_VARIABLE, SHARD_INDEX_VARIABLE } from '../../src/cli/swarm-command.js';
import { parseMergeArgs } from '../../src/cli/swarm-merge-command.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * The words a shell passes to `npx` when it runs `script` with `env`: bash runs the script with
 * npx as a function that prints its arguments, so quoting and variables are the shell's own.
 * (Standard input is closed: on a socket, bash would read ~/.bashrc first.)
 */
function npxCalls(script: string, env: Record<string, string>): string[][] {
  const out = execFileSync('bash', ['-c', `npx() { printf '%s\\0' "$@"; printf '\\n'; }\n${script}`], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\0').slice(0, -1));
}

/** The twinchain command words of an `npx twinchain …` call: ['swarm', …] or ['swarm', 'merge', …]. */
function twinchainArgs(call: string[]): string[] {
  expect(call[0]).toBe('twinchain');
  return call.slice(1);
}

/** The Dockerfile's entrypoint, working folder (the manifest's relative paths are read there) and final user. */
function image(): { entrypoint: string[]; workdir: string } {
  const text = read('Dockerfile');
  const final = text.slice(text.lastIndexOf('\nFROM '));
  return { entrypoint: JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(final)![1]!) as string[], workdir: /^WORKDIR (\S+)$/m.exec(final)![1]! };
}

describe('deploy/kubernetes/swarm-job.yaml', () => {
  const manifest = parse(read('deploy/kubernetes/swarm-job.yaml')) as Record<string, unknown>;

  it('is a valid batch/v1 Job by the Kubernetes OpenAPI schema, and the validator does refuse a broken one', () => {
    expect(() => new Job(manifest as never).validate()).not.toThrow();
    const broken = structuredClone(manifest) as { spec: Record<string, unknown> };
    broken.spec['completionMode'] = 'indexed';
    expect(() => new Job(broken as never).validate()).toThrow(/completionMode must be equal to one of the allowed values/);
    broken.spec['completionMode'] = 'Indexed';
    broken.spec['completions'] = '8';
    expect(() => new Job(broken as never).validate()).toThrow(/completions must be integer/);
  });

  it('is an Indexed Job whose pods run one shard each: --shard env, the count equal to completions, its result line on stdout', () => {
    const job = new Job(manifest as never);
    const spec = job.spec!;
    expect(job.apiVersion).toBe('batch/v1');
    expect(spec.completionMode).toBe('Indexed');
    const n = spec.completions!;
    expect(spec.parallelism).toBeGreaterThanOrEqual(1);
    expect(spec.parallelism).toBeLessThanOrEqual(n);
    expect(spec.template.spec!.restartPolicy).toBe('Never');
    const [container, ...others] = spec.template.spec!.containers;
    expect(others).toEqual([]);
    const count = container!.env!.find((e) => e.name === SHARD_COUNT_VARIABLE)?.value;
    expect(Number(count), `${SHARD_COUNT_VARIABLE} must equal completions`).toBe(n);
    // the image's entrypoint is `node bin/twinchain.js`: the args are a twinchain command line, run in its WORKDIR
    const { entrypoint, workdir } = image();
    expect(entrypoint).toEqual(['node', `${workdir}/bin/twinchain.js`]);
    expect(container!.command).toBeUndefined();
    const [command, ...rest] = container!.args!;
    expect(command).toBe('swarm');
    const seen: number[] = [];
    for (let i = 0; i < n; i++) {
      const args = parseSwarmArgs([...rest], { [SHARD_INDEX_VARIABLE]: String(i), [SHARD_COUNT_VARIABLE]: count });
      expect(args.shard).toEqual({ index: i, count: n });
      expect(args).toMatchObject({ jsonStdout: true, exitZero: true, single: undefined });
      expect(existsSync(path.join(ROOT, args.file)), `${args.file} is in the image's ${workdir}`).toBe(true);
      expect(args.jobs).toBe(Number(container!.resources!.requests!['cpu']));
      seen.push(i);
    }
    expect(seen).toHaveLength(n);
    // the mount where --out writes
    const out = parseSwarmArgs([...rest], { [SHARD_INDEX_VARIABLE]: '0', [SHARD_COUNT_VARIABLE]: count }).out;
    expect(container!.volumeMounts!.map((m) => m.mountPath)).toContain(out);
  });

  it('documents the commands from kubectl apply to swarm merge, and its merge command parses', () => {
    const comment = read('deploy/kubernetes/swarm-job.yaml')
      .split('\n')
      .filter((l) => l.startsWith('#   '))
      .map((l) => l.slice(4));
    expect(comment[0]).toBe('kubectl apply -f deploy/kubernetes/swarm-job.yaml');
    const merge = comment.find((l) => l.includes('swarm merge'))!;
    expect(merge).toMatch(/^kubectl logs -l job-name=twinchain-swarm --tail=-1 \| npx twinchain swarm merge -/);
    const [call] = npxCalls(merge.slice(merge.indexOf('npx ')), {});
    const words = twinchainArgs(call!);
    expect(words.slice(0, 2)).toEqual(['swarm', 'merge']);
    const args = parseMergeArgs(words.slice(2));
    expect(args.inputs).toEqual(['-']);
    expect(existsSync(path.join(ROOT, args.scenario!))).toBe(true);
    // docs/swarm.md shows the same three commands
    expect(read('docs/swarm.md')).toContain(comment.slice(0, 3).join('\n'));
  });
});

describe('.github/workflows/swarm.yml', () => {
  const text = read('.github/workflows/swarm.yml');
  const workflow = parse(text) as {
    on: { workflow_dispatch: { inputs: Record<string, { default: string }> } };
    env: Record<string, string>;
    jobs: Record<string, { needs?: string | string[]; if?: string; strategy?: { matrix: Record<string, string> }; steps: Array<{ id?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, unknown> }> }>;
  };

  it("is a valid workflow by SchemaStore's github-workflow schema, and the validator does refuse a broken one", () => {
    expect(validateWorkflow(text).errors).toEqual([]);
    const broken = text.replace('    runs-on: ubuntu-latest\n    timeout-minutes', '    runs_on: ubuntu-latest\n    timeout-minutes');
    expect(broken).not.toBe(text);
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  /** The value of a workflow or step env entry, with its `${{ inputs.x }}` / `${{ matrix.shard }}` expression resolved. */
  const resolve = (value: string, matrix: Record<string, string>): string =>
    value.replace(/\$\{\{\s*(inputs|matrix)\.([\w-]+)\s*\}\}/g, (_, ctx: string, key: string) => (ctx === 'inputs' ? workflow.on.workflow_dispatch.inputs[key]!.default : matrix[key]!));

  const envFor = (step: { env?: Record<string, string> }, matrix: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries({ ...workflow.env, ...step.env }).map(([k, v]) => [k, resolve(String(v), matrix)]));

  it('runs a matrix of N shards, each `swarm … --shard I/N` by the CLI’s own parser, and merges their artifacts', () => {
    const steps = (job: string) => workflow.jobs[job]!.steps;
    for (const s of Object.values(workflow.jobs).flatMap((j) => j.steps)) if (s.run) expect(s.run, 'inputs reach scripts through env, never pasted into them').not.toContain('${{');
    // the plan job's own script makes the matrix list
    const plan = steps('plan').find((s) => s.id === 'shards')!;
    const outputFile = path.join(mkdtempSync(path.join(tmpdir(), 'twinchain-workflow-')), 'output');
    try {
      execFileSync('bash', ['-c', plan.run!], { env: { PATH: process.env['PATH'] ?? '', ...envFor(plan, {}), GITHUB_OUTPUT: outputFile }, stdio: ['ignore', 'pipe', 'pipe'] });
      const list = JSON.parse(/^list=(.*)$/m.exec(readFileSync(outputFile, 'utf8'))![1]!) as number[];
      const n = Number(workflow.on.workflow_dispatch.inputs['shards']!.default);
      expect(list).toEqual([...Array(n).keys()]);
      expect(workflow.jobs['shard']!.strategy!.matrix['shard']).toBe('${{ fromJSON(needs.plan.outputs.shards) }}');

      const swarmStep = steps('shard').find((s) => s.run?.includes('twinchain swarm'))!;
      let out: string | undefined;
      for (const shard of list) {
        const calls = npxCalls(swarmStep.run!, envFor(swarmStep, { shard: String(shard) }));
        expect(calls).toHaveLength(1);
        const words = twinchainArgs(calls[0]!);
        expect(words[0]).toBe('swarm');
        const args = parseSwarmArgs(words.slice(1), {});
        expect(args.shard).toEqual({ index: shard, count: n });
        expect(args.seeds).toBe(Number(workflow.on.workflow_dispatch.inputs['seeds']!.default));
        expect(existsSync(path.join(ROOT, args.file))).toBe(true);
        out = args.out;
      }
      const upload = steps('shard').find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
      expect(upload.with!['path']).toBe(out);
      expect(upload.with!['name']).toBe('swarm-shard-${{ matrix.shard }}');

      expect(workflow.jobs['merge']!.needs).toBe('shard');
      expect(workflow.jobs['merge']!.if).toBe('${{ !cancelled() }}'); // also after a shard found a failing seed
      const download = steps('merge').find((s) => s.uses?.startsWith('actions/download-artifact'))!;
      expect(download.with).toMatchObject({ pattern: 'swarm-shard-*', 'merge-multiple': true });
      const mergeStep = steps('merge').find((s) => s.run?.includes('swarm merge'))!;
      const [call] = npxCalls(mergeStep.run!, envFor(mergeStep, {}));
      const words = twinchainArgs(call!);
      expect(words.slice(0, 2)).toEqual(['swarm', 'merge']);
      const merge = parseMergeArgs(words.slice(2));
      expect(merge.inputs).toEqual([download.with!['path']]);
      // the merged replay commands name the folder the shards wrote to, as theirs did
      expect(merge.out).toBe(out);
      expect(existsSync(path.join(ROOT, merge.scenario!))).toBe(true);
    } finally {
      rmSync(path.dirname(outputFile), { recursive: true, force: true });
    }
  });
});
