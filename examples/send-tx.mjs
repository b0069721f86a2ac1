// Deploys HelloWorld through JSON-RPC with a transaction signed by viem (FISCO BCOS 2.x rc2 layout)
import { readFileSync } from 'node:fs';
import { hexToBigInt, keccak256, numberToHex, toRlp } from 'viem';
import { generatePrivateKey, sign } from 'viem/accounts';

const url = process.argv[2];
const rpc = async (method, params) => {
  /** @type {any} */
  const reply = await (await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json();
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
};
const int = (n) => (n === 0n ? '0x' : numberToHex(n)); // RLP integers: big-endian, no leading zeros
const { bytecode } = JSON.parse(readFileSync('fixtures/contracts/artifacts/HelloWorld.json', 'utf8'));
const height = hexToBigInt(await rpc('getBlockNumber', [1]));
// nonce (random), gasPrice, gas, blockLimit, to (empty: a deployment), value, data, chainId, groupId, extraData
const fields = [int(hexToBigInt(generatePrivateKey())), int(300_000_000n), int(300_000_000n), int(height + 500n), '0x', '0x', bytecode, int(1n), int(1n), '0x'];
const key = generatePrivateKey();
const { r, s, yParity } = await sign({ hash: keccak256(toRlp(fields)), privateKey: key });
const raw = toRlp([...fields, int(27n + BigInt(yParity)), int(hexToBigInt(r)), int(hexToBigInt(s))]);
const hash = await rpc('sendRawTransaction', [1, raw]);
let receipt;
while (!(receipt = await rpc('getTransactionReceipt', [1, hash]))) await new Promise((resolve) => setTimeout(resolve, 100));
console.log(`HelloWorld deployed at ${receipt.contractAddress} in block ${hexToBigInt(receipt.blockNumber)}, status ${receipt.status}`);
