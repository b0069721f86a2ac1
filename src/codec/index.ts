export { CodecError, describeValue } from './codec-error.js';
export { toHex, toHexNoPrefix, parseHexBytes, fromHex, bytesEqual, concatBytes, compareBytes } from './hex.js';
export type { HexBytesOptions } from './hex.js';
export { parseQuantity, parseDecimal, parseDecimalOrHex, parseQuantityParam, parseBlockNumber, toQuantity } from './quantity.js';
export type { QuantityOptions, InterfaceVariant } from './quantity.js';
export { UINT256_MAX, bigintToBytes, bigintToFixedBytes, bytesToBigint, parseRlpUint } from './integer.js';
export { canonicalJson } from './canonical-json.js';
export { headerSize as rlpHeaderSize, writeHeader as writeRlpHeader, rlpEncode, rlpDecode, rlpListOfEncoded, rlpListOfEncodedRange, rlpListPayload, rlpItemEnd, rlpListItemsShallow, rlpBytesPayload, type RlpInput, type RlpValue } from './rlp.js';
export type { HashFunction } from './hash-function.js';
