// The JSON-RPC service over any node: here node0 of a dev server's simulated chain, served again
// on a port of its own and asked in-process. Run: npx tsx examples/rpc-service.ts
import { createRpcService, inProcessClient, startHttpServer } from 'twinchain/rpc';
import { startDevServer } from 'twinchain/simulation';

const dev = await startDevServer({ nodes: 1, rpcPort: 0 }); // one simulated sealer paced to the wall clock
const node = dev.chain.node('node0')!;

const service = createRpcService(node, { maxBatch: 100 }); // transport-independent
const http = await startHttpServer(service, { host: '127.0.0.1', port: 0, bodyLimit: 4 << 20 });
const client = inProcessClient(service); // no socket: same HTTP semantics

const overHttp = await fetch(http.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getClientVersion', params: [] }) });
console.log('over HTTP:', ((await overHttp.json()) as { result: Record<string, string> }).result['Supported Version']);
console.log('in process:', await client.request('getBlockNumber', [1]));
await http.close();
await dev.close();
