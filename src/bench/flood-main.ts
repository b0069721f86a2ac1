// A stranger's connection flood in a process of its own, so that it does not share an event loop
// with the client being measured: `node flood-main.js <port> <count>` holds `count` idle TCP
// connections to 127.0.0.1:<port>, re-opening each as it closes, and prints a JSON line of counts
// every second until it gets SIGTERM.
import { holdConnections } from './hostile-connections.js';

const port = Number(process.argv[2]);
const count = Number(process.argv[3]);
if (!Number.isInteger(port) || !Number.isInteger(count) || count <= 0) {
  process.stderr.write('usage: flood-main <port> <count>\n');
  process.exit(2);
}
const flood = holdConnections(port, count);
const report = () => process.stdout.write(`${JSON.stringify({ open: flood.open(), reopened: flood.reopened() })}\n`);
const timer = setInterval(report, 1_000);
process.on('SIGTERM', () => {
  clearInterval(timer);
  report();
  flood.stop();
  process.exit(0);
});
