import { describe, expect, it } from 'vitest';
import { blockNotifyFrame, blockNotifyTopic } from './block-notify.js';
import { ChannelType, ZERO_SEQ, decodeFrame, encodeFrame } from './channel-frame.js';

describe('block notify (0x1001)', () => {
  it('carries the topic, then "group,number" under v1 and JSON from v2 on, on seq 32 × 0', () => {
    expect(blockNotifyTopic(3)).toBe('_block_notify_3');
    for (const [version, content] of [
      [1, '3,42'],
      [2, '{"groupID":3,"blockNumber":42}'],
      [3, '{"groupID":3,"blockNumber":42}'],
    ] as const) {
      const frame = decodeFrame(encodeFrame(blockNotifyFrame(version, 3, 42)));
      expect([frame.type, frame.seq, frame.result]).toEqual([ChannelType.BLOCK_NOTIFY, ZERO_SEQ, 0]);
      const data = Buffer.from(frame.data);
      expect(data[0]).toBe('_block_notify_3'.length + 1);
      expect(data.subarray(1, 16).toString()).toBe('_block_notify_3');
      expect(data.subarray(16).toString()).toBe(content);
    }
  });
});
