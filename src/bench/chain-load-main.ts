// The chain bench's load process: `node --import tsx chain-load-main.ts '<LoadPlan JSON>'` prints a LoadResult as JSON.
import { runLoad, type LoadPlan } from './chain-load.js';

const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
runLoad(plan).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`load failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
