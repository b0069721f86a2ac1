import { ChannelType, ZERO_SEQ, type ChannelFrame } from './channel-frame.js';

/** The topic an SDK subscribes to (0x32) for a group's new blocks. */
export const blockNotifyTopic = (groupId: number): string => `_block_notify_${groupId}`;

/**
 * FISCO's 0x1001 block notify: topic data (one byte topic length + 1, the topic, then the
 * content) on seq 32 × '0'. The content is `"<group>,<number>"` under protocol v1 and
 * `{"groupID":<group>,"blockNumber":<number>}` from v2 on.
 */
export function blockNotifyFrame(protocolVersion: number, groupId: number, blockNumber: number): ChannelFrame {
  const topic = Buffer.from(blockNotifyTopic(groupId), 'utf8');
  const content = protocolVersion <= 1 ? `${groupId},${blockNumber}` : JSON.stringify({ groupID: groupId, blockNumber });
  const data = Buffer.concat([Buffer.of(topic.length + 1), topic, Buffer.from(content, 'utf8')]);
  return { type: ChannelType.BLOCK_NOTIFY, seq: ZERO_SEQ, result: 0, data };
}
