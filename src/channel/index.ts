export {
  HEADER_LENGTH,
  SEQ_LENGTH,
  DEFAULT_MAX_FRAME,
  ZERO_SEQ,
  ChannelType,
  ChannelResult,
  ChannelFrameError,
  FrameDecoder,
  encodeFrame,
  decodeFrame,
  frameText,
  numericSeq,
  type ChannelFrame,
} from './channel-frame.js';
export {
  ChannelSession,
  MIN_PROTOCOL,
  MAX_PROTOCOL,
  HEARTBEAT_V2_REPLY,
  type ChannelRpcHandler,
  type ChannelSessionOptions,
  type SessionPushHooks,
} from './channel-session.js';
export {
  ChannelPushes,
  EventLogResult,
  EventLogParamsError,
  parseEventLogFilterParams,
  logMatches,
  matchingLogs,
  eventLogReplyData,
  eventLogPushFrame,
  eventLogRequestJson,
  type ChannelPushesOptions,
  type EventLogFilterParams,
  type PushedLog,
} from './channel-pushes.js';
export {
  startChannelServer,
  CHANNEL_ECDH_CURVES,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  type ChannelServer,
  type ChannelServerOptions,
} from './channel-server.js';
export { blockNotifyFrame, blockNotifyTopic } from './block-notify.js';
export { ChannelClient, ChannelClientError, newSeq, type ChannelClientOptions, type ChannelClientErrorKind } from './channel-client.js';
