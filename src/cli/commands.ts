import { benchmarks } from '../bench/index.js';
import type { CommandSpec } from './command.js';

/** `bench --help`'s list, from the registry: every benchmark with its description, wrapped at 90 columns. */
function benchmarkList(): string {
  const width = Math.max(...Object.keys(benchmarks).map((n) => n.length));
  const indent = ' '.repeat(width + 5);
  return Object.entries(benchmarks)
    .map(([name, b]) => {
      const lines: string[] = [];
      let line = `  ${name.padEnd(width)}   `;
      for (const word of b.description.split(/\s+/)) {
        if (line.length + word.length > 90 && line.trim() !== name) {
          lines.push(line.trimEnd());
          line = indent;
        }
        line += `${word} `;
      }
      lines.push(line.trimEnd());
      return lines.join('\n');
    })
    .join('\n');
}

export const commands: readonly CommandSpec[] = [
  {
    name: 'run',
    synopsis: 'run <scenario.yaml> [--seed N] [--out dir] [--check-determinism] [--quiet]',
    summary: 'run a scenario deterministically and judge it: summary, trace and HTML report',
    help: `Usage: twinchain run <scenario.yaml> [--seed N] [--out dir] [--check-determinism] [--quiet]

Runs a scenario file (a chain, workloads, a timeline of faults and expectations; see
scenarios/ and docs/scenarios.md) in one deterministic simulation. Safety is checked on every
commit; after the timeline, faults are frozen and a probe transaction must reach every
live honest node within the liveness bound. Prints a progress bar (on a terminal), then a
summary, and writes summary.json, trace.jsonl and report.html.

  --seed                 overrides the file's seed (a number, or any text)
  --out                  output folder (default reports/<scenario name>)
  --check-determinism    run twice and require the same trace digest; on a difference
                         prints the first differing trace line of the two runs
  --quiet                no progress bar and no table: one verdict line (and what failed)

Exit status: 0 every expectation held; 1 one failed (printed with the seed and the exact
command that replays the run); 2 the scenario file is bad (file:line:column: key: problem)
or an output cannot be written (the path and the reason).

Examples:
  twinchain run scenarios/quickstart.yaml
  twinchain run scenarios/pbft-leader-crash.yaml --seed 7 --check-determinism`,
    load: () => import('./run-command.js'),
  },
  {
    name: 'tx decode',
    synopsis: 'tx decode <hex> [--suite ecdsa|sm] [--generation rc1|rc2]',
    summary: 'decode a signed transaction payload and print every field as JSON',
    help: `Usage: twinchain tx decode <hex> [--suite ecdsa|sm] [--generation rc1|rc2]

Decodes a FISCO BCOS 2.x signed transaction (the sendRawTransaction payload, with or
without 0x) and prints its fields, hash, signingHash and recovered sender as JSON.

  --suite        ecdsa (secp256k1 + keccak256) or sm (SM2 + SM3). Default: detected from
                 the signature (a 64-byte public key in the v slot means sm).
  --generation   rc1 (7 fields + v,r,s) or rc2 (10 fields + v,r,s). Default: detected
                 from the field count.

Bad input prints one line naming what is wrong and exits with status 2.

Example:
  twinchain tx decode f8d3a003922ee720bb7445e3a914d8ab8f507d1a647296d5...`,
    load: () => import('./tx-decode-command.js'),
  },
  {
    name: 'swarm merge',
    synopsis: 'swarm merge <folders | files | -> [--out dir] [--scenario file] [--until-fail]',
    summary: 'join swarm --shard I/N results into the swarm.json one unsharded run writes',
    help: `Usage: twinchain swarm merge <folder | file | -> ... [--out dir] [--scenario file] [--until-fail]

Joins the results of the shards of one swarm scan (twinchain swarm … --shard I/N, on any number
of machines) into what one unsharded run of the same seeds writes: swarm.json (the same runs,
verdicts, digests and replay commands; only shards, jobs, seedsPerMinute and the wall times
differ), a seed-S/ folder with the report of each failing seed (copied from the shard's
folder), and the same rows and verdict lines on stdout.

Inputs: a shard's --out folder (its swarm-shard-I-of-N.json; also in direct subfolders, one
per downloaded CI artifact), a file (a swarm-shard-I-of-N.json, or any log holding the lines
swarm --json-stdout printed, such as kubectl logs), or - for standard input.

Refused, with one line saying why and exit status 2: results of another scenario (its bytes'
SHA-256 differ) or another twinchain (version and commit), shards of another split (I/N with
another N) or scan (--from, --seeds, --until-fail), a shard given twice (overlap) or missing,
a result line cut off or changed (each line ends with its own SHA-256), a result whose seeds
are not its shard's.

  --out D         where swarm.json and the seed-S/ report folders go (default
                  reports/<scenario name>-swarm); the replay commands name it, as swarm's do
  --scenario F    the scenario file here: its SHA-256 must be the shards', and the replay
                  commands name it (default: the path the shards were given)
  --until-fail    keep only the seeds up to the lowest failing one, as swarm --until-fail
                  (implied when the shards ran --until-fail)

Exit status: 0 every seed passed, 1 a seed failed (the lowest is listed first, with the command
that replays it), 2 the inputs cannot be merged or bad usage.

Examples:
  twinchain swarm merge reports/pbft-swarm-swarm
  kubectl logs -l job-name=twinchain-swarm --tail=-1 | twinchain swarm merge - --scenario scenarios/pbft-swarm.yaml`,
    load: () => import('./swarm-merge-command.js'),
  },
  {
    name: 'swarm',
    synopsis: 'swarm <scenario.yaml> --seeds N [--from S] [--seed S] [--jobs N] [--until-fail] [--budget 5m] [--shard I/N] [--shrink]',
    summary: 'run many seeds with faults drawn within the file\'s bounds; list failing seeds',
    help: `Usage: twinchain swarm <scenario.yaml> --seeds N [--from S] [--jobs N] [--until-fail] [--budget T] [--out dir]
       twinchain swarm <scenario.yaml> --until-fail --budget T [--from S] [--jobs N]
       twinchain swarm <scenario.yaml> … --shard I/N [--json-stdout] [--exit-zero]   (one shard of a scan)
       twinchain swarm <scenario.yaml> --seed S          (replay one seed, with its report)

Runs the scenario once per seed (S, S+1, … S+N−1; default from 1), each time adding faults
drawn from the seed within the bounds of the file's swarm section: crashes, pauses,
partitions and election churn (each undone after a drawn time, one at a time, never more
nodes than every group's fault budget f minus its byzantine nodes), adversaries (byzantine
windows within the same budget, among them mutate: a sealer that mutates what it sends),
stale leaders (a leader cut off past its view or term, then healed), clock skews, hostile
clients and pool bursts, message-kind faults, a message loss rate and a mean latency.
Every run checks safety and the protocol invariants (quorum signatures, valid blocks, PBFT
locks and quorums, Raft votes and leaders). Prints what each seed drew and its verdict,
writes swarm.json and a report for every failing seed, and lists the failing seeds with the
command that replays each exactly (with the --out given) and the one that shrinks it (see
twinchain help shrink). A replay of one seed (--seed S) writes its report, trace and its own
swarm.json to seed-S/ in the output folder, leaving the scan's swarm.json as it was.

  swarm section (all optional):  crashes: [min, max]   pauses: [min, max]
    partitions: [min, max]   churn: [min, max]   adversaries: [min, max]
    messageFaults: [min, max]   loss: [min, max]   latencyMs: [min, max]
    staleLeaders: [min, max]   clockSkews: [min, max]   poolBursts: [min, max]
    hostile: [min, max]   (hostile client cases per second)
    window: [from, to]   (when faults may start)   faultDuration: [min, max]
    (docs/adversaries.md)

  --jobs N        seeds run at once, each in a worker thread (default: the machine's
                  cores; 1 runs them in this process). Rows, verdicts, digests and
                  swarm.json equal --jobs 1's: rows print in seed order.
  --until-fail    stop after the first failing seed (in seed order); without --seeds,
                  seeds are unbounded and a --budget is required
  --budget T      start no new seed after T of wall time (e.g. 300s, 5m); without
                  --seeds, seeds are unbounded
  --shard I/N     run only shard I of N (0 ≤ I < N) of the scan: seed s belongs to shard
                  (s − from) mod N, so shard I runs from+I, from+I+N, … (--seeds counts
                  the whole scan; --until-fail, --budget and --jobs apply per shard).
                  Writes swarm-shard-I-of-N.json (self-describing: scenario SHA-256,
                  twinchain version and commit, shard, seeds, verdicts, digests, timings)
                  to --out instead of swarm.json; twinchain swarm merge joins the shards.
                  --shard env takes I from $JOB_COMPLETION_INDEX (set by Kubernetes in an
                  Indexed Job) and N from $TWINCHAIN_SHARD_COUNT
  --json-stdout   print the result (a shard's, or the whole scan's as shard 0/1) as one
                  line of JSON on stdout, for a CI or kubectl log; the rows go to stderr
  --exit-zero     exit 0 although seeds failed (the result says which), so that a
                  Kubernetes Job completes; usage and file errors still exit 2
  --shrink        then shrink the first failing seed (twinchain shrink, same --jobs) into
                  seed-S/shrink/ of the output folder
The summary prints seeds per minute (wall) and the jobs used; swarm.json holds per run
the seed, verdict, digest, wall ms, failed expectations and safety violations, and
jobs, seedsPerMinute and firstFailure { seed, afterMs }, the scenario's SHA-256 and the
twinchain version and commit.

Exit status: 0 all seeds passed, 1 a seed failed, 2 bad file or usage, or an output that
cannot be written.

Examples:
  twinchain swarm scenarios/pbft-swarm.yaml --seeds 20
  twinchain swarm scenarios/raft-swarm.yaml --until-fail --budget 5m --jobs 2
  twinchain swarm scenarios/pbft-swarm.yaml --seeds 1000 --shard 0/4 --json-stdout`,
    load: () => import('./swarm-command.js'),
  },
  {
    name: 'shrink',
    synopsis: 'shrink <scenario.yaml> [--seed S] [--out dir] [--jobs N] [--budget 5m] [--violation name] [--plain]',
    summary: 'shrink a failing run to a small standalone scenario that fails the same way',
    help: `Usage: twinchain shrink <scenario.yaml> [--seed S] [--out dir] [--jobs N] [--budget 5m]
                        [--violation name] [--plain]

Takes a failing run (a swarm seed of a file with a swarm section, as \`swarm --seed S\` runs
it; else the file run with that seed), writes out every event its plan holds (each fault,
message fault, byzantine window, churn step, workload and network setting), and reduces them
while the same violation keeps showing (the same invariant, or the same expectation failed;
another failure does not count): the run cut off after the violation, delta debugging over
the events, crashLeader and isolateLeader written as the node they acted on, narrower fault
windows, smaller workloads (hostile ones with fewer behaviours), a mutating node with fewer
mutations, a shorter run, fewer nodes (within the groups' fault budgets), fewer groups. Then
it leaves out each kept event once to check the result is 1-minimal, and runs the written
file twice to check it fails the same way with one trace digest. Candidates run in parallel
in worker threads; the result is the same for any --jobs.

Writes to the output folder: shrunk.yaml (standalone: every event explicit, fixed seed;
\`twinchain run\` fails with the violation), original.yaml (the failing run's whole plan,
which \`twinchain run\` replays exactly), report.html, summary.json and trace.jsonl of the
shrunk run (its fault timeline beside the original's), and shrink.json. Prints the kept events
and, for each, what the run does without it. A progress line on a terminal; Ctrl-C or the
budget stops it with the best scenario so far written, marked not yet minimal.

  --seed S         the failing seed (default: the file's)
  --out dir        output folder (default reports/<name>-seed-<S>-shrink)
  --jobs N         candidates run at once, each in a worker thread (default: the
                   machine's cores; 1 runs them in this process)
  --budget T       stop after T of wall time (default 5m), keeping the best so far
  --violation X    the invariant (or expectation, by the start of its name) to keep
                   (default: the first the run shows)
  --plain          shrink the file's own run with the seed, ignoring its swarm section

Exit status: 0 shrunk, 1-minimal and verified; 1 written but not yet minimal (the budget)
or not verified; 2 bad file or usage, or a run that passes; 130 stopped by Ctrl-C.

Examples:
  twinchain shrink scenarios/pbft-swarm.yaml --seed 22 --jobs 2
  twinchain shrink reports/pbft-swarm-seed-22-shrink/shrunk.yaml --budget 10m`,
    load: () => import('./shrink-command.js'),
  },
  {
    name: 'serve',
    synopsis: 'serve [--nodes 4] [--consensus pbft|raft] [--rpc-port 8545] [--channel-port 20200]',
    summary: 'run a simulated group paced to the wall clock and serve each node\'s JSON-RPC and channel port',
    help: `Usage: twinchain serve [--nodes 4] [--consensus pbft|raft] [--rpc-port 8545] [--host 127.0.0.1]
                       [--channel-port 20200] [--cert-dir <dir>] [--no-channel]
                       [--seed <text>] [--supported-version 2.11.0] [--suite ecdsa|sm]
                       [--log <file>] [--quiet]

Runs one group of simulated sealers in this process, paced to the wall clock, and serves
node i's FISCO BCOS 2.x JSON-RPC on port rpc-port + i and FISCO's channel protocol (TLS 1.2
with mutual certificates: handshake, heartbeat, JSON-RPC, block notify) on channel-port + i:
a local chain for SDKs, consoles and \`twinchain conform\`. The channel ports use a chain CA,
one certificate per node and one SDK certificate (secp256k1, as build_chain makes them)
that serve generates with the system openssl (3.0 or newer); the SDK's files are laid out
as build-chain's sdk/ folder (ca.crt, sdk.crt, sdk.key), the folder SDKs and consoles take.
Prints the endpoints, the SDK folder, a ready line, then one line per block that node0
commits. Ctrl-C (SIGINT) or SIGTERM stops it cleanly.

  --nodes              sealers in group 1 (1 to 64, default 4)
  --consensus          pbft (default) or raft
  --rpc-port           node0's port; node i listens on rpc-port + i (default 8545;
                       0 lets every node pick a free port)
  --channel-port       node0's channel port; node i listens on channel-port + i (default
                       20200; 0 lets every node pick a free port)
  --cert-dir           where the certificates go: cert/ (chain CA, agency), nodeN/conf/,
                       sdk/. Kept after the stop; a later run reuses what it finds there,
                       so SDKs configured with its sdk/ keep working. Default: a new folder
                       in the OS temp dir, removed when serve stops
  --no-channel         no channel ports and no certificates (no openssl needed)
  --host               interface to bind (default 127.0.0.1, loopback only)
  --seed               node keys and every random choice derive from it
                       (default twinchain-serve)
  --supported-version  [compatibility] supported_version: 2.0.0-rc1 … 2.11.0 selects the
                       interface variant (2.0.0-rc1 = earlier, newer = later); default 2.11.0
  --suite              ecdsa (default) or sm (SM2/SM3; the client version ends with " gm";
                       the channel's TLS stays secp256k1)
  --log                append every node's log lines (FISCO format) and its channel
                       server's messages to this file
  --quiet              no line per block

Example:
  twinchain serve --nodes 4 --consensus raft --rpc-port 8545 --cert-dir ./serve-certs
  curl -s -X POST -d '{"jsonrpc":"2.0","method":"getBlockNumber","params":[1],"id":1}' http://127.0.0.1:8545`,
    load: () => import('./serve-command.js'),
  },
  {
    name: 'node',
    synopsis: 'node -c config.ini',
    summary: 'run one real node process from a build-chain node directory (what start.sh runs)',
    help: `Usage: twinchain node -c <node dir>/config.ini

Runs one real node, as FISCO's \`fisco-bcos -c config.ini\`: reads config.ini and every
conf/group.N.genesis with its group.N.ini (paths relative to the config file's folder),
stores its ledger in LevelDB under [group] group_data_path, connects to every [p2p] node.N
over TLS 1.2 with mutual authentication against the chain CA (a peer is the node its
certificate's key names), serves JSON-RPC over HTTP on [rpc] jsonrpc_listen_ip:port and
FISCO's channel protocol (TLS with the sdk/ certificates: handshake, heartbeat, JSON-RPC,
block notify) on channel_listen_ip:port, and writes FISCO-format logs to [log] log_path
(log_YYYYMMDDHH.MM.log, rotated hourly).

stdout says "Initializing...", then "The Twinchain node is running..." once every port
listens, or "Init failed!!! <reason>" (a bad key is named as file:line: key: problem) and
exit status 1. SIGTERM or SIGINT stops it cleanly within 5 s (listeners closed, the block
being written finished, the database closed); a block is on disk before it is reported
committed, so even kill -9 loses none.

Normally started by the node directory's start.sh (nohup, output in nohup.out) and stopped
by stop.sh; see \`twinchain build-chain --help\`.

Example:
  twinchain node -c nodes/127.0.0.1/node0/config.ini`,
    load: () => import('./node-command.js'),
  },
  {
    name: 'console init',
    synopsis: 'console init <dir> --sdk <node sdk dir> [--peers host:port,...]',
    summary: "prepare a console folder: config.toml, a node's SDK certificates, contracts",
    help: `Usage: twinchain console init <dir> --sdk <node sdk dir> [--peers host:port,...]

Makes a console folder in FISCO console 2.x's layout:
  conf/config.toml        [cryptoMaterial] certPath, [network] peers, [account] keyStoreDir
  conf/                   everything in the --sdk folder (ca.crt, sdk.crt, sdk.key)
  contracts/solidity/     HelloWorld.sol and the other Solidity fixtures
The account key is made on the console's first start (account/ecdsa/<address>.pem, or
account/gm/ on SM chains).

  --sdk      a node's sdk/ folder: build-chain's nodes/<ip>/sdk, or the folder serve prints
  --peers    channel endpoints; default: the channel ports of the build-chain nodes beside
             the sdk folder (node*/config.ini), else 127.0.0.1:20200

An existing conf/config.toml is refused and left as it is.

Example:
  twinchain console init console --sdk nodes/127.0.0.1/sdk`,
    load: () => import('./console-init-command.js'),
  },
  {
    name: 'console',
    synopsis: 'console [dir] [--group N] [-e command]...',
    summary: "FISCO's console over a node's channel port: queries, deploy, call, node management",
    help: `Usage: twinchain console [dir] [--group N] [-e "<command>"]...

Connects to the first reachable peer of <dir>/conf/config.toml (default: the current folder)
over the channel port (TLS 1.2 with the SDK certificates) and runs console commands:
  queries      getNodeVersion getPeers getBlockNumber getPbftView getSealerList
               getObserverList getConsensusStatus getSyncStatus getNodeIDList getGroupPeers
               getGroupList getBlockByHash getBlockByNumber getBlockHashByNumber
               getTransactionByHash getTransactionByBlockHashAndIndex
               getTransactionByBlockNumberAndIndex getTransactionReceipt
               getPendingTransactions getPendingTxSize getCode getTotalTransactionCount
               getSystemConfigByKey
  contracts    deploy <Name> [args]          compiles contracts/solidity/<Name>.sol (solc-js,
                                             Constantinople EVM), deploys, remembers the address
               call <Name> <address|latest> <function> [args]
                                             view functions are read, others are transactions
  nodes        addSealer addObserver removeNode <nodeId>; setSystemConfigByKey <key> <value>
  session      switch <group>, help [command], quit

On a terminal: the prompt [group:1]>, tab completion of commands, contract names and
functions, history kept in <dir>/.console_history. Otherwise the commands come from -e (one
command per -e) or from stdin, one per line, without a prompt.

  --group, -g   the group to start in (default 1)
  --exec, -e    run this command (repeatable) and exit

Exit status: 0; 1 when the node cannot be reached or (scripted) a command failed, at the first
failure; 2 for bad options.

Examples:
  twinchain console console
  twinchain console console -e "deploy HelloWorld" -e "call HelloWorld latest get"
  echo getBlockNumber | twinchain console console`,
    load: () => import('./console-command.js'),
  },
  {
    name: 'conform',
    synopsis: 'conform <url> [--group 1] [--variant earlier|later] [--json file]',
    summary: "check a node's JSON-RPC endpoint against docs/json-rpc.md and print a pass/fail table",
    help: `Usage: twinchain conform <url> [--group 1] [--variant earlier|later] [--json file]
                         [--removed-group <id>] [--timeout <seconds>]

Runs the conformance suite against any FISCO BCOS 2.x style JSON-RPC endpoint (Twinchain
or a real node), holding it to the interface docs/json-rpc.md describes (in the Twinchain
package and repository): every method's result shape and types, the hex conventions,
each error code under its condition, the differences of the two interface variants, \`call\`
leaving the height unchanged, and a transaction's life cycle (it deploys HelloWorld with a
key it generates: ECDSA, or SM2 when the node version ends with " gm").

  --group          group to test (default 1)
  --variant        hold the node to this interface variant; default: detected from
                   getClientVersion (Supported Version 2.0.0-rc1 = earlier, newer = later)
  --json           also write the results as JSON to this file
  --removed-group  a group the node keeps without being sealer or observer, to check
                   -40009 (skipped otherwise)
  --timeout        seconds a transaction may take to be included (default 30)

Before any check, getClientVersion must answer as a FISCO node's does (a JSON-RPC 2.0 reply
whose result has a "<product> Version" field); otherwise conform stops and says what came back.

Exit status: 0 when every check passed (skips allowed), 1 when any failed, 2 when the
endpoint cannot be reached, is not a FISCO node, the usage is wrong or --json cannot be
written.

Example:
  twinchain conform http://127.0.0.1:8545 --group 1 --json conformance.json`,
    load: () => import('./conform-command.js'),
  },
  {
    name: 'record',
    synopsis: 'record <url> [--group 1] [--from N] [--to M|latest] [--out file]',
    summary: "record a group's blocks and receipts from any FISCO 2.x JSON-RPC endpoint into a file",
    help: `Usage: twinchain record <url> [--group 1] [--from N] [--to M|latest] [--out file]
                        [--concurrency 8] [--quiet]

Reads a group's chain from any FISCO BCOS 2.x style JSON-RPC endpoint (Twinchain or a real
node, either interface variant, ECDSA or SM), through the JSON-RPC methods docs/json-rpc.md
describes only, and writes a recording: JSON Lines (gzip when the file name ends in .gz), a
header line (client version, chain id, supported version, interface variant, suite, state
type, block 0, the system configuration, sealers and observers) and then one line per block with the block
(getBlockByNumber with transactions) and each transaction's receipt, exactly as the node
answered them, in block order.

Requests go as JSON-RPC batches while the node takes them (single requests otherwise), with
at most --concurrency in flight. Connection failures, timeouts and HTTP 5xx are retried 5
times with a doubling wait; a node that answers nonsense (not JSON, a block other than the
one asked for, a block whose parentHash is not the previous block's hash, a missing receipt
or one of another transaction) stops the recording with the request and the reply. Blocks
already written stay: the file is a valid recording up to the last complete block.

  --group        group to record (default 1, or the group of the file continued)
  --from         first block of a new recording (default 1)
  --to           last block, or latest (default): the block number when recording starts
  --out          the recording (default recording.jsonl). An existing recording is continued
                 after its last block, only when it is of the same chain (block 0's hash)
                 and group; anything else is refused. A last line cut off by a killed run
                 is dropped (in a gzip file: refused, with the command that mends it)
  --concurrency  HTTP requests in flight at most (default 8)
  --quiet        no progress and no notices on stderr, only the summary line

Progress goes to stderr: a bar with blocks/s and ETA on a terminal, otherwise a line every
5 s. The summary line says blocks, transactions, seconds, blocks/s and the file.

Exit status: 0 recorded; 1 the node failed or answered nonsense (what was recorded stays);
2 bad usage or an --out that cannot be continued or written; 130 stopped by Ctrl-C or
SIGTERM (no retries from then on; requests in flight get 1 s to answer; the blocks complete
by then are written and the same command continues; stopped before the chain was read,
nothing is written).

Examples:
  twinchain record http://127.0.0.1:8545
  twinchain record http://127.0.0.1:8545 --group 2 --from 1 --to 5000 --out group2.jsonl.gz
  twinchain record http://127.0.0.1:8545 --out group2.jsonl.gz     (later: appends the new blocks)`,
    load: () => import('./record-command.js'),
  },
  {
    name: 'bench',
    synopsis: `bench [${Object.keys(benchmarks).join('|')} ...]`,
    summary: 'run benchmarks and print their figures',
    help: `Usage: twinchain bench [name ...]      (npm run bench -- <name>)

Runs the named benchmarks (all when none is named) and prints their figures.

Benchmarks:
${benchmarkList()}`,
    load: () => import('./bench-command.js'),
  },
  {
    name: 'mutants',
    synopsis: 'mutants [--budget 300s] [--only id[,id]] [--jobs N] [--quick] [--list] [--shrink]',
    summary: 'planted-bug benchmark: does swarm catch each catalogue bug as a safety violation?',
    help: `Usage: twinchain mutants [--budget 300s] [--only id[,id]] [--jobs N] [--quick] [--out dir] [--shrink]
       twinchain mutants --list
       twinchain mutants --only <id> --seed S [--shrink]  (replay a mutant's failing seed)

Mutation testing of the testbed itself. For each planted bug of the catalogue (PBFT quorums
and locks, Raft votes and commits, block sync checks, replica validation; see --list) it
copies bin/, src/, scenarios/, fixtures/ and package.json into a temporary folder (linking
node_modules), applies the bug's text patches there (the working tree is never edited; a
patch whose anchor does not occur exactly once fails that mutant, naming file and anchor),
and runs that copy's \`swarm <scenario> --until-fail --budget <rest>\` on the bug's swarm
scenarios. Per mutant it prints:
  caught                  a failing seed showed a safety/invariant violation (named)
  caught only as a stall  seeds failed, but only on liveness/receipt expectations
  survived                no seed failed within the budget
with the seed, the commands that replay it and shrink it, and the wall time to the first
failure; then "caught N of M" and the median time to detection. Writes mutants.json and, per mutant,
the swarm outputs (failing seeds' reports, swarm.log) under the output folder. Temporary
copies are removed and swarm children killed on exit or Ctrl-C.

  --budget T   wall time per mutant (default 300s; 60s with --quick)
  --only ids   comma-separated mutant ids (default: the whole catalogue)
  --jobs N     swarm jobs per mutant (default: the machine's cores)
  --quick      the few mutants caught fastest, 60 s each: for CI
  --list       print the catalogue and exit
  --seed S     run only seed S of each selected mutant's scenarios (a replay, with trace)
  --shrink     then shrink each mutant's failing seed (the copy's twinchain shrink, with
               --jobs) and print the shrunk size: events kept of the original's, nodes,
               candidates, wall time, whether it is 1-minimal and verified; the shrunk
               scenario is also run on the unmutated code, which must pass it
  --shrink-budget T  wall time per shrink (default 5m)
  --out dir    output folder (default reports/mutants)

Exit status: 0 every selected mutant was caught as a safety/invariant violation; 1 not;
2 bad usage.

Examples:
  twinchain mutants --list
  twinchain mutants --quick
  twinchain mutants --only pbft-forget-lock,raft-vote-not-persisted --budget 5m --jobs 2`,
    load: () => import('./mutants-command.js'),
  },
  {
    name: 'build-chain',
    synopsis: 'build-chain -l "ip:n[,ip2:m]" [-p 30300,20200,8545] [-o nodes] [-g] ...',
    summary: "write a real chain's node folders as FISCO's build_chain.sh does (certs, configs, scripts)",
    help: `Usage: twinchain build-chain -l "ip:n[,ip2:m…]" [-p p2p,channel,rpc] [-o dir] [-i] [-c pbft|raft]
                             [-g] [-v supported_version] [-C chain_id] [-T] [--state storage|mpt] [-h]

Writes the folders of a FISCO BCOS 2.x chain in the layout of FISCO's build_chain.sh, for
\`twinchain node\` to run: the chain CA and agency certificates (cert/; gmcert/ with -g), per
IP an sdk/ folder and start_all.sh/stop_all.sh, and per node config.ini, start.sh, stop.sh
and conf/ (key, certificate chain, node id, group.1.genesis, group.1.ini). Every node of
every IP is a sealer of group 1 and a peer in every config.ini. Keys and certificates come
from the system openssl (3.0 or newer): secp256k1, CA -> agency -> node/sdk; with -g also
SM2/SM3 ones (gmnode signing, gmennode encryption), the node id then being the SM2 key.

  -l  IP list, required: "ip:count" entries separated by commas, e.g. "127.0.0.1:4" or
      "127.0.0.1:2,127.0.0.2:2" (IPv4 addresses, each once; "ip" alone means 1 node)
  -p  start ports p2p,channel,rpc (default 30300,20200,8545); node i of an IP uses
      start + i for each, which must stay within 1..65535 without the three ranges meeting
  -o  output folder (default ./nodes); it must not exist
  -i  channel and JSON-RPC listen on 0.0.0.0 (default: 127.0.0.1, or the node's IP when
      that is another 127.x.y.z address); p2p always listens on the node's IP
  -c  consensus: pbft (default) or raft
  -g  an SM (guomi) chain: SM2 signatures, SM3 hashes (sm_crypto=true)
  -v  [compatibility] supported_version, 2.0.0-rc1 … 2.11.0 (default 2.11.0)
  -C  chain id, a positive integer (default 1)
  -T  log level debug (default info)
  --state  the group's [state] type: storage (FISCO's storage state; every block's stateRoot
           is FISCO's dbHash; the default) or mpt (a Merkle Patricia trie)
  -h  this help

It prints build_chain.sh's progress and summary lines, ending with
"[INFO] All completed. Files in <absolute dir>". The chain is built in a temporary folder
beside the output folder and renamed only when complete: a failed build leaves no output
folder, and its details (the failing openssl command, its stderr, the stack) in
<dir>.build.log. The scripts run the recorded Node.js executable and this checkout's
bin/twinchain.js (override with TWINCHAIN_NODE_EXE and TWINCHAIN_BIN); start_all.sh and
stop_all.sh exit with status 1 if any node failed to start or stop.

Exit status: 0 built; 1 the build failed (openssl or the file system); 2 bad options or
the output folder exists (nothing written).

Examples:
  twinchain build-chain -l 127.0.0.1:4 -p 30300,20200,8545
  twinchain build-chain -l "127.0.0.1:2,127.0.0.2:2" -c raft -g -o sm-nodes
  bash nodes/127.0.0.1/start_all.sh && bash nodes/127.0.0.1/stop_all.sh`,
    load: () => import('./build-chain-command.js'),
  },
  {
    name: 'replay',
    synopsis: 'replay <file> [--to N] [--json report.json] [--allow-missing field] [--quiet]',
    summary: 're-execute a recorded chain on a fresh node stack and verify it block by block',
    help: `Usage: twinchain replay <recording> [--to N] [--json report.json] [--allow-missing field]... [--quiet]

Re-executes a recording (twinchain record's JSON Lines file, .gz or not) on a fresh node
stack and verifies it block by block. The genesis is rebuilt from block 0's genesis mark,
block 0's timestamp and the recording's supported version, and its hash must equal the
recorded block 0 hash. Then, per block: each transaction is re-encoded from its JSON fields
(tx hash) and its signature recovers to the recorded sender; the block is re-executed with
the recorded number, parentHash, timestamp, sealer, sealerList and extraData; compared are
the parent link, transactionsRoot, every receipt (transactionHash, status, output, logs,
gasUsed — the block's running total before 2.9.0 — contractAddress, remainGas, logsBloom,
root), receiptsRoot, stateRoot (FISCO's dbHash on the storage state, the trie root on mpt),
dbHash, logsBloom, the block hash, the sealer list in force, and every entry of the
signatureList (against the block hash, by the sealer at its index) with at least n − f
valid ones (f = ⌊(n−1)/3⌋; Raft: a majority). Then the block is committed.

The first difference stops the replay: it prints the block, the transaction index, the
field, the recorded and the re-executed value, and the transaction's call (decoded with
the fixture contracts' ABIs and the system precompiles, else its selector). Checks the
recording has no data for (the earlier interface variant prints no signatures,
receiptsRoot or dbHash, and no signed fields of transactions: they run as the recorded
sender) are listed as skipped, with the reason. A recording of the later variant always
carries them: one that lacks a block's signatureList, dbHash or receiptsRoot, a receipt's
root, logsBloom or (from 2.9.0) remainGas, or a transaction's signature, blockLimit,
chainId, groupId or extraData is refused with file:line, the block and the field, unless
--allow-missing names that field. A recording that starts after block 1 is refused: the
state before it cannot be rebuilt.

  --to N           stop after block N
  --json           write the full report: per-check counts, skipped checks with reasons,
                   the fields allowed to be missing, timing, the divergence if any
  --allow-missing  a later-variant field the recording may lack (repeat it, or separate
                   fields with commas): its checks are listed as skipped, saying so
  --quiet          no progress on stderr

Progress goes to stderr: a bar with blocks/s and the ETA on a terminal, a line every 5 s
otherwise (the blocks are counted first, in one pass over the file that does not parse them).

Exit status: 0 every check matched (one summary line: blocks, transactions, seconds,
tx/s); 1 a divergence (printed); 2 a bad file or usage (file:line: problem, and the blocks
that replayed and matched before that line), or a --json that cannot be written (checked
before the replay).

Examples:
  twinchain replay chain.jsonl.gz
  twinchain replay chain.jsonl --to 100 --json replay-report.json`,
    load: () => import('./replay-command.js'),
  },
];
