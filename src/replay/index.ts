export {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  RecordingError,
  RecordingReader,
  RecordingWriter,
  parseBlockLine,
  parseHeader,
  type JsonObject,
  type RecordedBlock,
  type RecordingHeader,
} from './recording.js';
export {
  HELD_BLOCKS,
  RecordError,
  RecordStoppedError,
  RecordUsageError,
  STOP_GRACE_MS,
  record,
  stateTypeOf,
  suiteOfTransaction,
  type RecordOptions,
  type RecordProgress,
  type RecordSummary,
} from './recorder.js';
export { ALLOWABLE_MISSING, LATER_VARIANT_FIELDS, ReplayInputError, type LaterVariantField } from './recorded-json.js';
export { describeCall } from './call-decoder.js';
export {
  replayRecording,
  rebuildGenesis,
  type Divergence,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayReport,
  type SkippedCheck,
} from './replayer.js';
export { readRecordedTraffic, type RecordedTraffic, type TrafficBlock, type TrafficTransaction } from './recorded-traffic.js';
