import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A temporary folder for a test file's scenario files, made before its tests and removed after. */
export function scenarioFolder(prefix: string): { readonly dir: string; file(name: string, text: string): Promise<string> } {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    async file(name, text) {
      const file = path.join(dir, `${name}.yaml`);
      await writeFile(file, text);
      return file;
    },
  };
}

/** A small, quick PBFT scenario (4 sealers, 8 s, HelloWorld load); `rest` adds keys. */
export const smallScenario = (rest: string) => `name: small
duration: 8s
chain: { nodes: 4 }
workloads:
  - { kind: helloworld, rate: 5 }
${rest}`;
