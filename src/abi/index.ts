// The Solidity ABI codec (selectors, parameters, Error(string)), apart from codec/ so that the
// threads that need only hex, quantities and RLP (the replay's reader and crypto workers) do not
// load an ABI library.
export {
  decodeAbi,
  decodeErrorString,
  encodeAbi,
  encodeErrorString,
  encodeFunctionCall,
  functionSelector,
  signatureParameters,
} from './abi.js';
