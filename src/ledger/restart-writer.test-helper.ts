// Run as a separate process by group-chain.test.ts: builds a chain on LevelDB in the directory
// given as the first argument, then exits, so the test can reopen it as a restarted node would.
import { toHex } from '../codec/index.js';
import { LevelStoreFactory } from '../storage/index.js';
import { chainOn } from './chain-harness.test-helper.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: restart-writer <dir>');
const store = await new LevelStoreFactory(dir).open('group1');
const c = await chainOn(store);
const deployed = await c.commitBlock([c.tx(0, null, c.helloWorldInit())]);
const contract = deployed.block.receipts[0]!.contractAddress;
const set = c.tx(1, contract, c.data('set(string)', ['written before the restart']));
await c.commitBlock([set, c.tx(2, new Uint8Array(20).fill(9), c.data('get()'))]);
const totals = c.chain.ledger.txTotals;
await store.close();
process.stdout.write(
  `${JSON.stringify({
    height: c.chain.height,
    headHash: toHex(c.chain.headHash),
    stateRoot: toHex(c.chain.state.root),
    contract: toHex(contract),
    setTx: toHex(set.hash),
    totals: [String(totals.txSum), String(totals.failedTxSum)],
  })}\n`,
);
