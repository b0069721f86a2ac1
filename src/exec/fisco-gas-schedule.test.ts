// The EVM gas FISCO BCOS 2.x charges, per supported_version (see fisco-gas-schedule.ts for the
// sources). Every gasUsed below is computed by hand from FISCO's rules: intrinsic 21000 (53000
// for a creation) + 4 per zero and 68 per non-zero calldata byte, then evmone's opcode prices
// (PUSH1 3, CALLDATALOAD 3, POP 2, ADDRESS 2, STOP 0, ...) and the Executive's refund cap.
import { describe, expect, it } from 'vitest';
import { ProtocolVersion, TX_STATUS } from '../chain/index.js';
import { bigintToBytes, concatBytes, fromHex } from '../codec/index.js';
import { deployCodeFor, harness, type Harness } from './exec-harness.test-helper.js';
import { FISCO_BCOS_SCHEDULE, FISCO_BCOS_SCHEDULE_V2, FISCO_BCOS_SCHEDULE_V3, fiscoGasSchedule } from './fisco-gas-schedule.js';

/** One version per schedule: FiscoBcosSchedule, FiscoBcosScheduleV2, FiscoBcosScheduleV3. */
const V1 = '2.0.0';
const V2 = '2.5.0';
const V3 = '2.6.0';
/** FiscoBcosScheduleV2 before and from 2.5.0 (the Ethereum precompiles change there). */
const V2_4 = '2.4.0';

async function deployRuntime(h: Harness, runtime: Uint8Array): Promise<Uint8Array> {
  const receipt = await h.run(0, null, deployCodeFor(runtime));
  expect(receipt.status).toBe(0);
  return receipt.contractAddress;
}

/** A 32-byte word (calldata argument). */
const word = (n: bigint) => {
  const bytes = bigintToBytes(n);
  return concatBytes(new Uint8Array(32 - bytes.length), bytes);
};

/** Per-transaction gasUsed (receipts before 2.9 are cumulative, but each block here holds one transaction). */
const gasOf = async (h: Harness, to: Uint8Array, data: Uint8Array) => {
  const receipt = await h.run(0, to, data);
  expect(receipt.status).toBe(0);
  return receipt.gasUsed;
};

describe('FISCO 2.x gas schedules', () => {
  it('picks the schedule from supported_version as GlobalConfigureInitializer does', () => {
    const of = (v: string) => fiscoGasSchedule(ProtocolVersion.parse(v)).name;
    for (const v of ['2.0.0-rc1', '2.0.0-rc2', '2.0.0-rc3', '2.0.0']) expect(of(v)).toBe('FiscoBcosSchedule');
    for (const v of ['2.0.1', '2.1.0', '2.4.0', '2.5.0', '2.5.9']) expect(of(v)).toBe('FiscoBcosScheduleV2');
    const precompiles = (v: string) => fiscoGasSchedule(ProtocolVersion.parse(v)).ethereumPrecompiles;
    for (const v of ['2.0.0', '2.1.0', '2.4.9']) expect(precompiles(v)).toBe('free');
    for (const v of ['2.5.0', '2.6.0', '2.11.0']) expect(precompiles(v)).toBe('istanbul');
    for (const v of ['2.6.0', '2.9.0', '2.11.0']) expect(of(v)).toBe('FiscoBcosScheduleV3');
    expect(FISCO_BCOS_SCHEDULE.maxCodeSize).toBe(0x6000);
    expect(FISCO_BCOS_SCHEDULE_V2.maxCodeSize).toBe(0x40000);
    expect(FISCO_BCOS_SCHEDULE_V3.maxCodeSize).toBe(0x40000);
  });

  // store(v): PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE STOP — 9 gas besides the SSTORE.
  // Calldata: one 32-byte word; value 1 or 2 → 31 zero bytes + 1 non-zero = 124 + 68 = 192,
  // value 0 → 128. Intrinsic 21192 / 21128.
  const STORE = fromHex('0x60003560005500');
  describe.each([
    // [version, added, unchanged, modified/deleted]
    [V1, 20_000n, 5_000n, 5_000n],
    [V2, 20_000n, 5_000n, 5_000n],
    [V3, 20_000n, 800n, 5_000n],
  ])('SSTORE at supported_version %s', (version, added, unchanged, modified) => {
    it('prices set, same-value, reset and delete (refund 15000, capped at half the gas used)', async () => {
      const h = await harness({ version });
      const store = await deployRuntime(h, STORE);
      expect(await gasOf(h, store, word(1n))).toBe(21_192n + 9n + added); // 0 → 1: added
      expect(await gasOf(h, store, word(1n))).toBe(21_192n + 9n + unchanged); // 1 → 1: unchanged
      expect(await gasOf(h, store, word(2n))).toBe(21_192n + 9n + modified); // 1 → 2: modified
      // 2 → 0: deleted; used 21128 + 9 + 5000 = 26137, refund min(15000, 13068)
      expect(await gasOf(h, store, word(0n))).toBe(26_137n - 13_068n);
      expect(await gasOf(h, store, word(0n))).toBe(21_128n + 9n + unchanged); // 0 → 0: unchanged
    });
  });

  it('≥ 2.6 keeps evmone\'s SSTORE prices within a transaction: no EIP-2200 dirty-slot discount or restore refund', async () => {
    // PUSH1 1 PUSH1 0 SSTORE, PUSH1 2 PUSH1 0 SSTORE, PUSH1 0 PUSH1 0 SSTORE, STOP: 18 gas of pushes
    const dirty = fromHex('0x60016000556002600055600060005500');
    for (const version of [V1, V2, V3]) {
      const h = await harness({ version });
      const to = await deployRuntime(h, dirty);
      // added 20000 + modified 5000 + deleted 5000: used 21000 + 18 + 30000 = 51018, refund 15000
      // (EIP-2200 would charge 20000 + 800 + 800 and refund 19200: 23418)
      expect(await gasOf(h, to, new Uint8Array(0))).toBe(51_018n - 15_000n);
    }
  });

  it('caps refunds with the transaction\'s own gas field: min((tx.gas − gas left) / 2, refunds) in u256', async () => {
    const h = await harness({ version: V2 });
    const store = await deployRuntime(h, STORE);
    expect(await gasOf(h, store, word(1n))).toBe(41_201n);
    const run = async (gas: bigint, value: bigint) => {
      const tx = h.account(0).build({ to: store, data: word(value), blockLimit: BigInt(h.number + 500), gas });
      const receipt = (await h.block([tx])).block.receipts[0]!;
      expect(receipt.status).toBe(0);
      return receipt.gasUsed;
    };
    // 1 → 0 costs 26137 before the refund of 15000; gas left 300000000 − 26137 = 299973863
    // tx.gas 299995000: cap (299995000 − 299973863) / 2 = 10568
    expect(await run(299_995_000n, 0n)).toBe(26_137n - 10_568n);
    expect(await run(300_000_000n, 1n)).toBe(41_201n);
    // tx.gas 1000000 < gas left: the u256 subtraction wraps, nothing caps the 15000
    expect(await run(1_000_000n, 0n)).toBe(26_137n - 15_000n);
  });

  it('≥ 2.6 has the EIP-2200 sentry: an SSTORE with 2300 gas left or less is out of gas', async () => {
    // callee: PUSH1 0 PUSH1 0 SSTORE STOP — an unchanged slot, 6 gas of pushes before the SSTORE
    // caller: CALL(gas, callee, 0, 0, 0, 0, 0), then return the success flag as a word
    const callerOf = (callee: Uint8Array, gas: number) =>
      concatBytes(
        fromHex('0x6000600060006000600073'),
        callee,
        Uint8Array.of(0x61, gas >> 8, gas & 0xff, 0xf1), // PUSH2 gas CALL
        fromHex('0x60005260206000f3'), // PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
      );
    const succeeds = async (h: Harness, callee: Uint8Array, gas: number) => {
      const caller = await deployRuntime(h, callerOf(callee, gas));
      const receipt = await h.run(0, caller, new Uint8Array(0));
      expect(receipt.status).toBe(0);
      return receipt.output[31] === 1;
    };
    const v3 = await harness({ version: V3 });
    const callee3 = await deployRuntime(v3, fromHex('0x600060005500'));
    expect(await succeeds(v3, callee3, 6 + 2301)).toBe(true); // 2301 left: sentry passes, 800 charged
    expect(await succeeds(v3, callee3, 6 + 2300)).toBe(false); // 2300 left: out of gas
    const v2 = await harness({ version: V2 });
    const callee2 = await deployRuntime(v2, fromHex('0x600060005500'));
    expect(await succeeds(v2, callee2, 6 + 5000)).toBe(true); // unchanged costs 5000, no sentry
    expect(await succeeds(v2, callee2, 6 + 4999)).toBe(false);
  });

  it('BLOCKHASH costs 20 in every schedule (evmone\'s table; EVMSchedule.blockhashGas 800 is never read)', async () => {
    // PUSH1 0 BLOCKHASH POP STOP: 3 + 20 + 2
    for (const version of [V1, V2, V3]) {
      const h = await harness({ version });
      const to = await deployRuntime(h, fromHex('0x6000405000'));
      expect(await gasOf(h, to, new Uint8Array(0))).toBe(21_000n + 25n);
    }
  });

  it('BALANCE, EXTCODEHASH and SLOAD: 400 / 400 / 200 before 2.6, 700 / 700 / 800 from 2.6 (EIP-1884)', async () => {
    // ADDRESS BALANCE POP ADDRESS EXTCODEHASH POP PUSH1 0 SLOAD POP STOP: 2+b+2 + 2+h+2 + 3+s+2
    const code = fromHex('0x303150303f506000545000');
    for (const [version, b, hash, s] of [
      [V1, 400n, 400n, 200n],
      [V2, 400n, 400n, 200n],
      [V3, 700n, 700n, 800n],
    ] as const) {
      const h = await harness({ version });
      const to = await deployRuntime(h, code);
      expect(await gasOf(h, to, new Uint8Array(0))).toBe(21_000n + 13n + b + hash + s);
    }
  });

  it('CHAINID and SELFBALANCE exist from 2.6 only', async () => {
    // CHAINID POP SELFBALANCE POP STOP: 2 + 2 + 5 + 2
    const code = fromHex('0x4650475000');
    const v3 = await harness({ version: V3 });
    expect(await gasOf(v3, await deployRuntime(v3, code), new Uint8Array(0))).toBe(21_011n);
    for (const version of [V1, V2]) {
      const h = await harness({ version });
      const receipt = await h.run(0, await deployRuntime(h, code), new Uint8Array(0));
      expect(receipt.status).toBe(TX_STATUS.BadInstruction);
      // an undefined instruction takes all the gas (FISCO's Executive sets m_gas to 0)
      expect(receipt.gasUsed).toBe(300_000_000n);
    }
  });

  it('limits deployed code to 0x6000 bytes up to 2.0.0 and to 0x40000 after', async () => {
    // init code: PUSH3 size PUSH1 0 RETURN (returns `size` zero bytes of memory)
    const initFor = (size: number) => Uint8Array.of(0x62, (size >> 16) & 0xff, (size >> 8) & 0xff, size & 0xff, 0x60, 0x00, 0xf3);
    const v1 = await harness({ version: V1 });
    const ok = await v1.run(0, null, initFor(0x6000));
    expect(ok.status).toBe(0);
    // 53000 + calldata (62 00 60 00 60 00 f3: 3 zero, 4 non-zero = 12 + 272) + PUSH3 3 + PUSH1 3
    // + memory for 768 words (3·768 + 768²/512 = 3456) + code deposit 200 · 0x6000
    expect(ok.gasUsed).toBe(53_000n + 284n + 6n + 3_456n + 200n * 0x6000n);
    expect((await v1.run(0, null, initFor(0x6001))).status).toBe(TX_STATUS.OutOfGas);
    const v2 = await harness({ version: '2.1.0' });
    expect((await v2.run(0, null, initFor(0x6001))).status).toBe(0);
    expect((await v2.run(0, null, initFor(0x40001))).status).toBe(TX_STATUS.OutOfGas);
  });

  describe('the Ethereum precompiles', () => {
    // caller: CALL(0xffff, address, 0, 0, size, 0, 32) POP, then return RETURNDATASIZE as a word.
    // 7 pushes 21 + CALL 700 + memory for the input (3 per word + words²/512) + POP 2
    // + RETURNDATASIZE 2 + PUSH1 MSTORE PUSH1 PUSH1 12 (RETURN 0): 737 + memory + the callee's gas
    const callerOf = (address: number, size: number) =>
      Uint8Array.of(0x60, 32, 0x60, 0, 0x61, size >> 8, size & 0xff, 0x60, 0, 0x60, 0, 0x60, address, 0x61, 0xff, 0xff, 0xf1, 0x50, 0x3d, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3);
    const probe = async (h: Harness, address: number, size: number) => {
      const receipt = await h.run(0, await deployRuntime(h, callerOf(address, size)), new Uint8Array(0));
      expect(receipt.status).toBe(0);
      return { gasUsed: receipt.gasUsed, returned: Number(receipt.output[31]) };
    };
    // input of zeros: 32 bytes → 1 word (memory 3), 213 bytes (blake2) → 7 words (memory 21)
    const base32 = 21_000n + 737n + 3n;
    const base213 = 21_000n + 737n + 21n;

    it.each([V1, V2_4])('before 2.5 (%s): 0x1–0x4 cost nothing, 0x5–0x9 do not exist', async (version) => {
      const h = await harness({ version });
      expect(await probe(h, 4, 32)).toEqual({ gasUsed: base32, returned: 32 }); // identity, free
      expect(await probe(h, 2, 32)).toEqual({ gasUsed: base32, returned: 32 }); // sha256, free
      expect(await probe(h, 6, 32)).toEqual({ gasUsed: base32, returned: 0 }); // no ALT_BN128 add
      expect(await probe(h, 9, 213)).toEqual({ gasUsed: base213, returned: 0 }); // no blake2
    });

    it.each([V2, V3])('from 2.5 (%s): 0x1–0x9 at Istanbul prices', async (version) => {
      const h = await harness({ version });
      expect(await probe(h, 4, 32)).toEqual({ gasUsed: base32 + 15n + 3n, returned: 32 }); // identity 15 + 3/word
      expect(await probe(h, 2, 32)).toEqual({ gasUsed: base32 + 60n + 12n, returned: 32 }); // sha256 60 + 12/word
      expect(await probe(h, 6, 32)).toEqual({ gasUsed: base32 + 150n, returned: 64 }); // ALT_BN128 add 150 (not 500)
      expect(await probe(h, 9, 213)).toEqual({ gasUsed: base213, returned: 64 }); // blake2, 0 rounds: 0
    });
  });
});
