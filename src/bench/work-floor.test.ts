import { describe, expect, it } from 'vitest';
import { keccak256 } from '../crypto/index.js';
import { rawHelloWorldCalls } from './raw-evm.js';
import { timeMandatedWork } from './work-floor.js';

const callers = [keccak256(Uint8Array.of(1)).subarray(12), keccak256(Uint8Array.of(2)).subarray(12)];

describe('work floor', () => {
  it('runs the HelloWorld calls on plain ethereumjs and times them', async () => {
    const ms = await rawHelloWorldCalls([3, 0, 2], callers);
    expect(ms).toBeGreaterThan(0);
  });

  it('fails loudly when a call does not execute, so a floor never times calls that did nothing', async () => {
    // a selector HelloWorld does not have: the contract reverts
    await expect(rawHelloWorldCalls([1], callers, () => Uint8Array.of(0xde, 0xad, 0xbe, 0xef))).rejects.toThrow(/raw call failed/);
  });

  it('names the secp256k1 backend and times both parts', async () => {
    const times = await timeMandatedWork({ signs: 30, verifies: 20, recovers: 10, blockSizes: [2, 1] });
    expect(['native', 'noble']).toContain(times.backend);
    expect(times.secp256k1Ms).toBeGreaterThan(0);
    expect(times.evmMs).toBeGreaterThan(0);
  });
});
