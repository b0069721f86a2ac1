import { expect } from 'vitest';

/**
 * Runs a decoder that must refuse its input and checks the refusal: an error of `type` whose
 * `name` is the class's own, with a message that starts with `prefix` (what a reader sees first:
 * "includes" would pass a message wrapped twice). Returns the error for further checks.
 */
export function expectRefusal(run: () => unknown, type: abstract new (...args: never[]) => Error, prefix: string): Error {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error, `expected a ${type.name} starting "${prefix}"`).toBeInstanceOf(type);
  const e = error as Error;
  expect(e.name).toBe(type.name);
  expect(e.message.startsWith(prefix), `"${e.message}" does not start with "${prefix}"`).toBe(true);
  return e;
}
