export {
  createRpcService,
  scanNesting,
  DEFAULT_MAX_BATCH,
  DEFAULT_MAX_DEPTH,
  type RpcService,
  type RpcServiceOptions,
  type RequestLimits,
  type RpcReply,
  type RpcId,
} from './rpc-service.js';
export { startHttpServer, createHttpHandler, type HttpServerOptions, type HttpHandlerOptions, type RpcHttpServer } from './http-adapter.js';
export { answerHttp, DEFAULT_BODY_LIMIT, type HttpAnswer } from './http-exchange.js';
export { inProcessFetch, inProcessClient, type InProcessOptions } from './in-process.js';
export {
  JsonRpcClient,
  RpcCallError,
  RpcTransportError,
  type FetchFunction,
  type RpcClientOptions,
  type RpcErrorObject,
  type RpcResponse,
  type RawHttpResponse,
} from './rpc-client.js';
export { RPC_ERRORS, RpcError, rpcError, noPbftViewError, EARLIER_NO_PBFT_VIEW_CODE, type RpcErrorKind } from './errors.js';
export { METHOD_NAMES } from './methods.js';
