import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { HELD_BAND_PORTS, freePortBlock, listenPortRange } from './free-ports.js';

describe('freePortBlock', () => {
  const { low, high } = listenPortRange();

  it('draws held blocks from the lowest band and every other block above it, never crossing', async () => {
    for (let i = 0; i < 20; i++) {
      const held = await freePortBlock(4, ['127.0.0.1'], new Set(), 'held');
      expect(held).toBeGreaterThanOrEqual(low);
      expect(held + 3).toBeLessThan(low + HELD_BAND_PORTS);
      const any = await freePortBlock(4);
      expect(any).toBeGreaterThanOrEqual(low + HELD_BAND_PORTS);
      expect(any + 3).toBeLessThanOrEqual(high);
    }
  });

  it('draws again when a port of the block is in use or in avoid', async () => {
    const bandLow = low + HELD_BAND_PORTS;
    const span = high - bandLow + 1 - 3;
    const drawOf = (base: number) => (base - bandLow + 0.5) / span;
    const server = createServer();
    const busy = await freePortBlock(1);
    await new Promise<void>((resolve) => server.listen(busy, '127.0.0.1', resolve));
    const random = vi.spyOn(Math, 'random');
    try {
      const avoided = busy + 50;
      const free = await freePortBlock(3, ['127.0.0.1'], new Set(), 'any');
      random.mockReturnValueOnce(drawOf(busy - 1)).mockReturnValueOnce(drawOf(avoided - 2)).mockReturnValueOnce(drawOf(free));
      expect(await freePortBlock(3, ['127.0.0.1'], new Set([avoided]))).toBe(free);
      expect(random).toHaveBeenCalledTimes(4);
    } finally {
      random.mockRestore();
      server.close();
    }
  });
});
