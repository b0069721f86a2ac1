import { connect as tcpConnect, type Socket } from 'node:net';

/**
 * `count` plain TCP connections to `port` that send nothing, each re-opened the moment it closes
 * (a stranger's flood); `stop` ends them all.
 */
export function holdConnections(port: number, count: number, host = '127.0.0.1'): { open(): number; reopened(): number; stop(): void } {
  let stopped = false;
  let open = 0;
  let reopened = 0;
  const sockets = new Set<Socket>();
  const one = () => {
    if (stopped) return;
    const socket = tcpConnect(port, host);
    sockets.add(socket);
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      open++;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (connected) open--;
      if (stopped) return;
      reopened++;
      // a refused connect (the port closed while its node restarts) is retried a little later
      setTimeout(one, connected ? 0 : 500);
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    open: () => open,
    reopened: () => reopened,
    stop: () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}
