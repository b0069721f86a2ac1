/** A hash function (keccak256, or SM3 on guomi chains, where function selectors are SM3-based). */
export type HashFunction = (data: Uint8Array) => Uint8Array;
