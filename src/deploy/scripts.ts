import { existsSync } from 'node:fs';
import { packagePath } from '../package-root.js';

/** What the node scripts run: `<nodeExe> <twinchainBin> node -c config.ini`. */
export interface ScriptTargets {
  /** Absolute path of the Node.js executable (default: the one running the build). */
  readonly nodeExe: string;
  /** Absolute path of the repository's bin/twinchain.js. */
  readonly twinchainBin: string;
}

/** This repository's bin/twinchain.js. */
export function repoTwinchainBin(): string {
  return packagePath('bin', 'twinchain.js');
}

export function defaultScriptTargets(): ScriptTargets {
  return { nodeExe: process.execPath, twinchainBin: repoTwinchainBin() };
}

/** Checks the recorded paths exist now (the scripts check again when they run). */
export function missingTargets(t: ScriptTargets): string[] {
  return [t.nodeExe, t.twinchainBin].filter((p) => !existsSync(p));
}

/** A bash single-quoted word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const HEADER = `#!/bin/bash
SHELL_FOLDER=$(cd "$(dirname "$0")" && pwd -P) || exit 1

# green/red only on a terminal
say_ok() { if [ -t 1 ]; then echo -e "\\033[32m$1\\033[0m"; else echo "$1"; fi; }
say_error() { if [ -t 1 ]; then echo -e "\\033[31m$1\\033[0m"; else echo "$1"; fi; }
`;

/**
 * alive PID: the process exists and is not a zombie. Not read from /proc/PID/cmdline: that reads
 * empty while the process is in execve (nohup starting node), which made start.sh give up on a
 * node that was starting.
 */
export const ALIVE = `alive() {
    kill -0 "$1" 2>/dev/null || return 1
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || { [ ! -d /proc/self ]; return; }
    stat=\${stat##*) }
    [ "\${stat%% *}" != Z ]
}`;

/** Shared by start.sh and stop.sh: the pid in node.pid if that process is this node. */
const NODE_PROCESS = `node=$(basename "\${SHELL_FOLDER}")
cd "\${SHELL_FOLDER}" || exit 1

${ALIVE}

# the pid in node.pid if it is alive, runs "node -c config.ini" and works in this folder
running_pid() {
    local pid
    pid=$(cat node.pid 2>/dev/null) || return 0
    [[ "\${pid}" =~ ^[0-9]+$ ]] || return 0
    alive "\${pid}" || return 0
    case " $({ tr '\\0' ' ' < "/proc/\${pid}/cmdline"; } 2>/dev/null)" in
        *" node -c config.ini "*) ;;
        *) return 0 ;;
    esac
    [ "$(readlink "/proc/\${pid}/cwd" 2>/dev/null)" = "\${SHELL_FOLDER}" ] || return 0
    echo "\${pid}"
}
`;

/** node<i>/start.sh: starts the node with nohup and waits (≤ 60 s) for its "is running" line. */
export function startSh(t: ScriptTargets): string {
  return `${HEADER}
# Starts this Twinchain node in the background, as FISCO BCOS's start.sh does. The Node.js
# executable and bin/twinchain.js were recorded by build-chain; TWINCHAIN_NODE_EXE and
# TWINCHAIN_BIN override them.
node_exe=\${TWINCHAIN_NODE_EXE:-${shellQuote(t.nodeExe)}}
twinchain_bin=\${TWINCHAIN_BIN:-${shellQuote(t.twinchainBin)}}
${NODE_PROCESS}
pid=$(running_pid)
if [ -n "\${pid}" ]; then
    echo " \${node} is running, pid is \${pid}."
    exit 0
fi
if [ ! -x "\${node_exe}" ]; then
    say_error " \${node} start failed: no Node.js executable at \${node_exe} (set TWINCHAIN_NODE_EXE)"
    exit 1
fi
if [ ! -f "\${twinchain_bin}" ]; then
    say_error " \${node} start failed: no \${twinchain_bin} (set TWINCHAIN_BIN to Twinchain's bin/twinchain.js)"
    exit 1
fi

# what the node writes (nohup.out, node.pid, data/, log/) is its user's alone, whatever the caller's umask
umask 077

# only what this start appends to nohup.out counts
offset=0
[ -f nohup.out ] && offset=$(wc -c < nohup.out)
this_start() { tail -c +$((offset + 1)) nohup.out 2>/dev/null; }

# nohup.out exists (0600) before the node starts: the background shell opens it later, so a
# chmod after the launch could run before the file is there
: >> nohup.out
chmod 600 nohup.out
nohup "\${node_exe}" "\${twinchain_bin}" node -c config.ini < /dev/null >> nohup.out 2>&1 &
pid=$!
echo "\${pid}" > node.pid
chmod 600 node.pid

for ((i = 0; i < 600; i++)); do
    if this_start | grep -q "is running"; then
        say_ok " \${node} start successfully"
        exit 0
    fi
    alive "\${pid}" || break
    sleep 0.1
done
if this_start | grep -q "is running"; then
    say_ok " \${node} start successfully"
    exit 0
fi
if alive "\${pid}"; then
    say_error " \${node} start failed: no \\"is running\\" line within 60 s (pid \${pid} still runs; stop.sh stops it)"
else
    rm -f node.pid
    say_error " \${node} start failed: the node exited"
fi
this_start | tail -n 20
echo " see \${SHELL_FOLDER}/nohup.out and the logs in \${SHELL_FOLDER}/log/"
exit 1
`;
}

/** node<i>/stop.sh: SIGTERM, up to 10 s, then SIGKILL. */
export function stopSh(): string {
  return `${HEADER}
# Stops this Twinchain node: SIGTERM, then SIGKILL if it still runs after 10 s.
${NODE_PROCESS}
pid=$(running_pid)
if [ -z "\${pid}" ]; then
    echo " \${node} isn't running."
    exit 0
fi
kill -TERM "\${pid}" 2>/dev/null
for ((i = 0; i < 100; i++)); do
    if ! alive "\${pid}"; then
        rm -f node.pid
        say_ok " stop \${node} success."
        exit 0
    fi
    sleep 0.1
done
kill -KILL "\${pid}" 2>/dev/null
for ((i = 0; i < 50; i++)); do
    if ! alive "\${pid}"; then
        rm -f node.pid
        say_ok " stop \${node} success. (killed: still running 10 s after SIGTERM)"
        exit 0
    fi
    sleep 0.1
done
say_error "  Exceed maximum number of retries. Please try again to stop \${node}"
exit 1
`;
}

function allSh(verb: 'start' | 'stop'): string {
  return `${HEADER}
# ${verb === 'start' ? 'Starts' : 'Stops'} every node under this folder at once; exits 1 if any failed.
pids=()
names=()
while IFS= read -r directory; do
    if [[ -f "\${SHELL_FOLDER}/\${directory}/config.ini" && -f "\${SHELL_FOLDER}/\${directory}/${verb}.sh" ]]; then
        echo "try to ${verb} \${directory}"
        bash "\${SHELL_FOLDER}/\${directory}/${verb}.sh" &
        pids+=($!)
        names+=("\${directory}")
    fi
done < <(ls -1 "\${SHELL_FOLDER}" | sort -V)
failed=()
for i in "\${!pids[@]}"; do
    wait "\${pids[$i]}" || failed+=("\${names[$i]}")
done
if [ \${#failed[@]} -gt 0 ]; then
    say_error "[ERROR] \${#failed[@]} of \${#pids[@]} nodes failed to ${verb}: \${failed[*]}"
    exit 1
fi
`;
}

/** <ip>/start_all.sh */
export function startAllSh(): string {
  return allSh('start');
}

/** <ip>/stop_all.sh */
export function stopAllSh(): string {
  return allSh('stop');
}
