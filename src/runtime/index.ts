export type {
  Env,
  NodeId,
  Clock,
  TimerHandle,
  Transport,
  Rng,
  Randomness,
  LogLevel,
  LogSink,
  Tracer,
} from './env.js';
export { formatLogLine } from './log-line.js';

export {
  Simulation,
  DEFAULT_EPOCH_MS,
  deriveNodeId,
  type SimulationOptions,
  type AddNodeOptions,
  type ClockSkew,
  type SimNodeInfo,
  type EventView,
  type RunOptions,
  type RunResult,
  type StopReason,
  type PaceOptions,
  type InjectOptions,
} from './sim/simulation.js';
export type { BootFunction, NodeState } from './sim/sim-node.js';
export type { EventKindName } from './sim/sim-event.js';
export {
  VirtualNetwork,
  type NodeNames,
  type Partition,
  type NodeTrafficStats,
  type TrafficTotals,
  type WireObserver,
  type MessageClassifier,
  type MessageFault,
  type MessageFaultSpec,
} from './sim/virtual-network.js';
export type { LinkStats, DropCounts } from './sim/link.js';
export { defaultLinkConfig, type LinkConfig, type LatencyModel } from './sim/link-config.js';
export { SeededRng, SeededRandomness, deriveSeed } from './sim/seeded-rng.js';
export { Trace, formatTraceRecord, type TraceRecord, type TraceSink, type TraceOptions, type DropCause } from './sim/trace.js';
export { TraceFileSink } from './sim/trace-file-sink.js';
export {
  checkDeterminism,
  formatDivergence,
  type Scenario,
  type DeterminismCheckOptions,
  type DeterminismReport,
  type Divergence,
} from './sim/determinism-check.js';
export { SimulationError } from './sim/simulation-error.js';
export type { WallClock } from './sim/wall-clock.js';

export { RealClock } from './real/real-clock.js';
export { RealRandomness, CryptoRng } from './real/real-randomness.js';
export { realWallClock } from './real/real-wall-clock.js';
export { fileSystemWords } from './files/index.js';
export {
  TlsTransport,
  TLS_TRANSPORT_DEFAULTS,
  type TlsTransportOptions,
  type TlsTransportStats,
  type PeerAddress,
} from './real/tls-transport.js';
export { FileLogSink, logFileName, type FileLogSinkOptions } from './real/file-log-sink.js';
export { PendingHandshakes } from './connections/index.js';
