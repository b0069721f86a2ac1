import { captureIo } from './capture-io.test-helper.js';
import { run as serve } from './serve-command.js';

/** Runs `twinchain serve` in this process until the returned stop() is called; resolves once it is ready. */
export async function startServe(args: string[]) {
  const io = captureIo();
  let stop!: () => void;
  const until = new Promise<void>((resolve) => (stop = resolve));
  const exit = serve(args, io, until);
  const deadline = Date.now() + 20_000;
  while (!/^ready: /m.test(io.stdout)) {
    const early = await Promise.race([exit.then((code) => ({ code })), new Promise<undefined>((r) => setTimeout(() => r(undefined), 20))]);
    if (early) throw new Error(`serve exited with ${early.code} before ready: ${io.stderr}`);
    if (Date.now() > deadline) throw new Error(`serve not ready: ${io.stdout}${io.stderr}`);
  }
  const channels = [...io.stdout.matchAll(/^(node\d+)\s+channel\s+127\.0\.0\.1:(\d+)$/gm)].map((m) => Number(m[2]));
  const urls = [...io.stdout.matchAll(/^node\d+\s+JSON-RPC\s+(\S+)$/gm)].map((m) => m[1]!);
  const sdkDir = /^SDK certificates: (\S+)/m.exec(io.stdout)?.[1];
  return { io, channels, urls, sdkDir, stop: async () => (stop(), exit) };
}
