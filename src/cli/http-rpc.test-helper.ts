export interface RpcReply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** One JSON-RPC request (id 7) over real HTTP. */
export async function rpc(url: string, method: string, params: unknown[] = [1]): Promise<RpcReply> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return (await response.json()) as RpcReply;
}
