export { runConsole, HISTORY_FILE, type ConsoleRunOptions } from './console-main.js';
export { initConsole, siblingNodePeers, FIXTURE_CONTRACTS, type InitResult } from './console-init.js';
export { readConsoleConfig, parseConsoleConfig, renderConsoleConfig, CONFIG_FILE, type ConsoleConfig, type Peer } from './console-config.js';
export { ConsoleError } from './console-error.js';
export { ConsoleRunner, commandNames, type ConsoleOutput, type LineOutcome } from './console-runner.js';
export { ConsoleSession } from './console-session.js';
export { COMMANDS, SEPARATOR, type ConsoleCommand } from './console-commands.js';
