export {
  EVM_VERSION,
  OPTIMIZER,
  compileSources,
  compilerIdentity,
  compilerVersion,
  formatDiagnostic,
  type Artifact,
  type CompileOptions,
  type CompileResult,
  type Diagnostic,
  type Sources,
} from './solidity-compiler.js';
