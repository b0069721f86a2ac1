import { describe, expect, it } from 'vitest';
import { ChannelResult, ChannelType, encodeFrame, frameText, type ChannelFrame } from './channel-frame.js';
import { ChannelSession, HEARTBEAT_V2_REPLY } from './channel-session.js';

const SEQ = 'f'.repeat(32);

function setup(handle: (body: string) => Promise<string> = async (b) => `echo:${b}`) {
  const sent: ChannelFrame[] = [];
  const closed: string[] = [];
  const session = new ChannelSession({
    service: { handle },
    supportedVersion: '2.9.0',
    send: (f) => sent.push(f),
    close: (r) => closed.push(r),
  });
  const exchange = async (type: number, data: string, seq = SEQ) => {
    await session.receive({ type, seq, result: 0, data: Buffer.from(data) });
    return sent.at(-1);
  };
  return { session, sent, closed, exchange };
}

/** The close reasons after a handshake with `body`; nothing may have been sent. */
async function refusedHandshake(body: string): Promise<string[]> {
  const { sent, closed, exchange } = setup();
  await exchange(ChannelType.HANDSHAKE, body);
  expect(sent, body).toEqual([]);
  return closed;
}

describe('channel session', () => {
  it('answers RPC on the same seq through the handler', async () => {
    const { exchange } = setup();
    const reply = await exchange(ChannelType.RPC, '{"method":"getBlockNumber"}');
    expect(reply).toMatchObject({ type: 0x12, seq: SEQ, result: 0 });
    expect(frameText(reply!)).toBe('echo:{"method":"getBlockNumber"}');
  });

  it('a failing handler gives an error reply, not a crash', async () => {
    const { exchange } = setup(async () => { throw new Error('boom'); });
    expect(await exchange(ChannelType.RPC, '{}')).toMatchObject({ seq: SEQ, result: ChannelResult.NODE_UNREACHABLE });
  });

  it('negotiates min(3, clientMax) and stays at v1 without a handshake', async () => {
    for (const [max, expected] of [[1, 1], [2, 2], [3, 3], [9, 3]] as const) {
      const { session, exchange } = setup();
      expect(session.protocolVersion).toBe(1);
      const reply = await exchange(ChannelType.HANDSHAKE, JSON.stringify({ minimumSupport: 1, maximumSupport: max, clientType: 'test' }));
      expect(JSON.parse(frameText(reply!))).toEqual({ protocol: expected, nodeVersion: '2.9.0' });
      expect(session.protocolVersion).toBe(expected);
      expect(session.clientType).toBe('test');
    }
  });

  it('closes when the versions do not overlap or the handshake is garbage', async () => {
    const bodies = [
      '{"minimumSupport":4,"maximumSupport":5}',
      '{"minimumSupport":0,"maximumSupport":0}',
      '{"minimumSupport":3,"maximumSupport":2}',
      'nope',
      'null',
      '[1,3]',
      '3',
    ];
    for (const body of bodies) expect(await refusedHandshake(body), body).toHaveLength(1);
  });

  it('a missing minimumSupport / maximumSupport means 1, as FISCO reads them (value.get(key, 1))', async () => {
    const cases: Array<[body: string, protocol: number]> = [
      ['{"clientType":"java-sdk"}', 1],
      ['{}', 1],
      ['{"maximumSupport":3,"clientType":"java-sdk"}', 3],
      ['{"minimumSupport":1,"clientType":"java-sdk"}', 1],
    ];
    for (const [body, protocol] of cases) {
      const { session, closed, exchange } = setup();
      const reply = await exchange(ChannelType.HANDSHAKE, body);
      expect(closed, body).toEqual([]);
      expect(reply, body).toMatchObject({ type: ChannelType.HANDSHAKE, seq: SEQ, result: 0 });
      expect(JSON.parse(frameText(reply!)), body).toEqual({ protocol, nodeVersion: '2.9.0' });
      expect(session.protocolVersion, body).toBe(protocol);
    }
    const { session, exchange } = setup();
    await exchange(ChannelType.HANDSHAKE, '{"clientType":"java-sdk"}');
    expect(session.clientType).toBe('java-sdk');
    expect(frameText((await exchange(ChannelType.HEARTBEAT, '0'))!)).toBe('1');
  });

  it('refuses a minimumSupport / maximumSupport that is there but not an integer', async () => {
    for (const body of ['{"minimumSupport":"1","maximumSupport":3}', '{"maximumSupport":2.5}', '{"minimumSupport":null}', '{"maximumSupport":[3]}', '{"minimumSupport":true,"maximumSupport":3}']) {
      expect(await refusedHandshake(body), body).toEqual([expect.stringMatching(/not integers/)]);
    }
  });

  it('heartbeat: "1" under v1, {"heartBeat":1}\\n under v2+', async () => {
    const { exchange } = setup();
    expect(frameText((await exchange(ChannelType.HEARTBEAT, '0'))!)).toBe('1');
    await exchange(ChannelType.HANDSHAKE, '{"minimumSupport":1,"maximumSupport":2,"clientType":"x"}');
    const reply = await exchange(ChannelType.HEARTBEAT, '');
    expect(reply).toMatchObject({ type: 0x13, seq: SEQ, result: 0 });
    expect(frameText(reply!)).toBe(HEARTBEAT_V2_REPLY);
    expect(HEARTBEAT_V2_REPLY).toBe('{"heartBeat":1}\n');
  });

  it('records topic subscriptions; a bad one is an error reply', async () => {
    const { session, sent, exchange } = setup();
    await exchange(ChannelType.SUBSCRIBE_TOPICS, '["_block_notify_1","t"]');
    expect([...session.topics]).toEqual(['_block_notify_1', 't']);
    expect(sent).toEqual([]);
    await exchange(ChannelType.SUBSCRIBE_TOPICS, '["x"]');
    expect([...session.topics]).toEqual(['x']);
    expect(await exchange(ChannelType.SUBSCRIBE_TOPICS, '{"a":1}')).toMatchObject({ result: ChannelResult.NODE_UNREACHABLE });
    expect([...session.topics]).toEqual(['x']);
  });

  it('unknown types get an error reply on the same seq', async () => {
    const { exchange } = setup();
    expect(await exchange(0x777, 'x')).toMatchObject({ type: 0x777, seq: SEQ, result: ChannelResult.NODE_UNREACHABLE });
  });

  it('feed decodes split frames and closes on a malformed one', async () => {
    const { session, sent, closed } = setup();
    const bytes = encodeFrame({ type: ChannelType.HEARTBEAT, seq: SEQ, data: '0' });
    session.feed(bytes.subarray(0, 10));
    session.feed(bytes.subarray(10));
    await Promise.resolve();
    expect(sent.length).toBe(1);
    const bad = Buffer.alloc(42);
    bad.writeUInt32BE(3, 0);
    session.feed(bad);
    expect(closed[0]).toMatch(/malformed frame/);
    expect(session.isClosed).toBe(true);
    session.feed(bytes);
    expect(session.send({ type: 0x13, seq: SEQ, result: 0, data: new Uint8Array() })).toBe(false);
    expect(sent.length).toBe(1);
  });
});
