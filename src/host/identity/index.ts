// The node's identity files without the node: reading a node or account key and the node id in a
// certificate. The console signs with such key files and enters here, so that it does not load
// the node stack that src/host/index.ts brings (executor, ledger, consensus: about 0.3 s).
export { readNodeKey, certificateNodeId, ownCertificateNodeId, NODE_ID_URI_PREFIX } from '../node-identity.js';
