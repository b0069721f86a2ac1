import { expect } from 'vitest';
import type { Cluster } from './sim-cluster.js';

/** 20 s of HelloWorld load at 10 tx/s, then: everyone at one height past 10, identical chains, nothing missing. */
export async function expectSteadyLoadCommitted(c: Cluster): Promise<void> {
  c.startHelloWorldLoad(10, 20_000);
  await c.sim.run({ until: 25_000 });
  const heights = c.heights();
  expect(Math.min(...heights)).toBeGreaterThan(10);
  expect(new Set(heights).size).toBe(1);
  await c.checkAgreement();
  expect(c.submitted.length).toBeGreaterThan(150);
  expect(await c.missing('node2')).toEqual([]);
}
