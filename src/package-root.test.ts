import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packagePath, packageRoot } from './package-root.js';

describe('packageRoot', () => {
  it('is the folder of the package.json above the module, whatever the depth of the caller', () => {
    const root = packageRoot();
    expect(root).toBe(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
    expect((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string }).name).toBe('twinchain');
    expect(packageRoot()).toBe(root);
  });

  it('names the files the package ships from the root', () => {
    expect(packagePath('fixtures', 'contracts', 'artifacts', 'HelloWorld.json')).toBe(path.join(packageRoot(), 'fixtures', 'contracts', 'artifacts', 'HelloWorld.json'));
    expect(existsSync(packagePath('bin', 'twinchain.js'))).toBe(true);
  });
});
