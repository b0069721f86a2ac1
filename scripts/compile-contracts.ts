// `npm run contracts`: compiles every fixtures/contracts/*.sol with the pinned solc and
// (re)writes fixtures/contracts/artifacts/<ContractName>.json. Artifacts of contracts that no
// longer exist are deleted. Prints warnings; on any error prints it and exits with status 1
// without touching the artifacts.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS_DIR,
  REPO_ROOT,
  artifactFileName,
  compileSources,
  compilerVersion,
  formatDiagnostic,
  readSources,
  renderArtifact,
} from './contract-artifacts.js';

function main(): number {
  const sources = readSources();
  const files = Object.keys(sources);
  if (files.length === 0) {
    console.error('compile-contracts: no .sol files in fixtures/contracts/');
    return 1;
  }
  console.log(`solc ${compilerVersion()}: compiling ${files.length} files (${files.join(', ')})`);
  const { artifacts, diagnostics } = compileSources(sources);
  for (const d of diagnostics) {
    (d.severity === 'error' ? console.error : console.warn)(formatDiagnostic(d));
  }
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (errors > 0) {
    console.error(`compile-contracts: ${errors} error(s); artifacts left unchanged`);
    return 1;
  }

  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const wanted = new Set<string>();
  let written = 0;
  for (const artifact of artifacts) {
    const name = artifactFileName(artifact);
    wanted.add(name);
    const file = path.join(ARTIFACTS_DIR, name);
    const text = renderArtifact(artifact);
    let old: string | undefined;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      old = undefined;
    }
    if (old !== text) {
      writeFileSync(file, text);
      written++;
    }
  }
  const removed: string[] = [];
  for (const name of readdirSync(ARTIFACTS_DIR)) {
    if (name.endsWith('.json') && !wanted.has(name)) {
      rmSync(path.join(ARTIFACTS_DIR, name));
      removed.push(name);
    }
  }
  const rel = path.relative(REPO_ROOT, ARTIFACTS_DIR);
  console.log(
    `${artifacts.length} artifacts in ${rel}/ (${written} written, ${artifacts.length - written} unchanged` +
      `${removed.length > 0 ? `, removed ${removed.join(', ')}` : ''})`,
  );
  return 0;
}

process.exitCode = main();
