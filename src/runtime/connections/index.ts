// Connection bounds shared by the node's TLS servers (p2p, channel), as an entry of its own: the
// channel server, which the console loads, must not bring the whole runtime (the simulator) in.
export { PendingHandshakes } from './pending-handshakes.js';
