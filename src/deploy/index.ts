// twinchain build-chain: a FISCO BCOS 2.x chain's certificates, config files and scripts.
export {
  parseBuildChainArgs,
  checkBuildChainOptions,
  BuildChainUsageError,
  DEFAULT_PORTS,
  DEFAULT_OUTPUT_DIR,
  MAX_CHAIN_ID,
  type BuildChainOptions,
  type BuildChainHost,
  type BuildChainPorts,
} from './options.js';
export { buildChain, BuildChainError, type BuildChainEnv, type BuildChainResult, type BuiltNode } from './build-chain.js';
export { planNodes, serviceListenIp, type PlannedNode } from './config-files.js';
export { systemOpenssl, OpensslError, type OpensslRunner } from './openssl.js';
export { SM2_DIST_ID } from './certificates.js';
export { defaultScriptTargets, repoTwinchainBin, type ScriptTargets } from './scripts.js';
export { ensureChannelCertificates, type ChannelCertificates, type TlsIdentity } from './chain-certs.js';
