import { describe, expect, it } from 'vitest';
import type { NodeRpc, RpcCallReply } from '../node-rpc.js';
import type { SimChain } from '../sim-chain.js';
import { RESEND_AFTER_MS, TxClient } from './tx-client.js';
import { TxTracker } from './tx-tracker.js';

/** A client over a stub chain and a stub JSON-RPC that refuses with the given transaction status name. */
function clientRefusedWith(name: string) {
  const clock = { now: 0 };
  const sim = { get now() { return clock.now; }, random: () => ({ int: () => 0, bytes: (n: number) => new Uint8Array(n) }) };
  const sent: string[] = [];
  const rpc = {
    call: async (target: string): Promise<RpcCallReply> => {
      sent.push(target);
      return { id: 1, error: { code: -32603, message: `${name} (0): refused`, data: { status: '0x0', name } } };
    },
  };
  const tracker = new TxTracker();
  const client = new TxClient({ sim } as unknown as SimChain, rpc as unknown as NodeRpc, tracker);
  client.candidates = () => ['node0', 'node1'];
  const record = tracker.add('0xaa', 'helloworld', 1, 'f800', 0);
  return { client, record, sent, clock };
}

describe('TxClient refusals', () => {
  it.each(['TxPoolIsFull', 'OverGroupMemoryLimit'])('re-sends a transaction refused with %s (no room in that pool) later', async (name) => {
    const { client, record, sent, clock } = clientRefusedWith(name);
    await client.transmit(record);
    expect([record.accepted, record.retryable, sent.length]).toEqual([false, true, 1]);
    clock.now = RESEND_AFTER_MS;
    await client.resendOverdue();
    expect(sent.length).toBe(2);
  });

  it('never re-sends a transaction refused for what it is (NonceCheckFail)', async () => {
    const { client, record, sent, clock } = clientRefusedWith('NonceCheckFail');
    await client.transmit(record);
    expect([record.accepted, record.retryable]).toEqual([false, false]);
    clock.now = RESEND_AFTER_MS;
    await client.resendOverdue();
    expect(sent.length).toBe(1);
  });

  it.each(['AlreadyKnown', 'AlreadyInChain'])('counts %s as accepted: the node has it', async (name) => {
    const { client, record } = clientRefusedWith(name);
    await client.transmit(record);
    expect([record.accepted, record.node]).toEqual([true, 'node0']);
  });

  it('counts a pooled transaction as refused once a re-send finds its blockLimit passed (it expired in a pool): no longer pending', async () => {
    const { client, record, sent, clock } = clientRefusedWith('BlockLimitCheckFail');
    record.accepted = true;
    record.attempts = 1;
    clock.now = RESEND_AFTER_MS;
    await client.resendOverdue();
    expect([record.accepted, record.retryable, record.rejection]).toEqual([false, false, '-32603: BlockLimitCheckFail (0): refused']);
    expect(client.tracker.pending()).toEqual([]);
    expect(client.tracker.totals().rejected).toBe(1);
    clock.now = 3 * RESEND_AFTER_MS;
    await client.resendOverdue();
    expect(sent.length).toBe(1);
  });
});
