import { fileURLToPath } from 'node:url';
import { loadScenarioFile, runScenario, formatSummary } from 'twinchain/scenario';
import { startDevServer } from 'twinchain/simulation';
import { runConformance, formatReport } from 'twinchain/conformance';

// the package's own scenarios/ folder, wherever it is installed
const quickstart = fileURLToPath(new URL('scenarios/quickstart.yaml', import.meta.resolve('twinchain/package.json')));
const result = await runScenario(await loadScenarioFile(quickstart));
console.log(result.verdict, result.digest); // pass 92f2275386a80d3a
console.log(formatSummary(result));

const dev = await startDevServer({ nodes: 1, rpcPort: 0 }); // one simulated sealer paced to the wall clock
console.log(formatReport(await runConformance({ url: dev.endpoints[0].url })));
await dev.close();
