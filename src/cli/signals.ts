/** Resolves with the first SIGINT or SIGTERM (Ctrl-C, kill), so a long-running command can stop cleanly. */
export function firstSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
