export { startNodeHost, stdoutStamp, RPC_LIMITS, StartError, type NodeHost, type NodeHostOptions } from './node-host.js';
export { readNodeConfig, parseNodeConfig, type NodeConfig, type Endpoint } from './node-config.js';
export { readGroupFiles, parseGroupFiles, type GroupFiles } from './group-files.js';
export { ConfigError, IniFile } from './ini-file.js';
export { readNodeKey, certificateNodeId, ownCertificateNodeId, NODE_ID_URI_PREFIX } from './node-identity.js';
