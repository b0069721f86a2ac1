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
