import { describe, expect, it } from 'vitest';
import type { RpcService } from '../rpc/index.js';
import { startDevServer } from './dev-server.js';

const BLOCK_NUMBER = '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":7}';

/** `promise`, or a rejection naming `what` after `ms`: a hang fails the test instead of stalling it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('startDevServer', () => {
  it('answers a call made from inside the attach hook, and refuses one after close at once', async () => {
    const answers: string[] = [];
    let kept: RpcService | undefined;
    const server = await within(
      startDevServer({
        nodes: 1,
        rpcPort: 0,
        seed: 'attach-call',
        attach: async ({ service }) => {
          kept = service;
          answers.push(await within(service.handle(BLOCK_NUMBER), 5_000, 'getBlockNumber from attach'));
          return { close: async () => undefined };
        },
      }),
      10_000,
      'startDevServer',
    );
    try {
      expect(answers).toHaveLength(1);
      expect(JSON.parse(answers[0]!)).toMatchObject({ jsonrpc: '2.0', id: 7, result: expect.stringMatching(/^0x[0-9a-f]+$/) });
    } finally {
      await server.close();
    }
    const after = JSON.parse(await within(kept!.handle(BLOCK_NUMBER), 1_000, 'getBlockNumber after close')) as { id: number; error: { message: string } };
    expect(after.id).toBe(7);
    expect(after.error.message).toContain('node0 cannot answer: the simulation has stopped');
  }, 20_000);

  it('stops the run when attach fails, and passes its error on', async () => {
    const failing = startDevServer({
      nodes: 1,
      rpcPort: 0,
      attach: () => Promise.reject(new Error('attach failed on purpose')),
    });
    await expect(within(failing, 10_000, 'startDevServer')).rejects.toThrow('attach failed on purpose');
  }, 20_000);
});
