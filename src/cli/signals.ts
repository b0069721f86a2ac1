/** The first SIGINT or SIGTERM (Ctrl-C, kill) while a long-running command runs, so it can stop cleanly. */
export interface SignalWatch {
  /** Resolves with the signal's name. */
  readonly received: Promise<string>;
  /** Stops listening: a command run in process (through main) must hand Ctrl-C back to its host when it returns or fails. */
  stop(): void;
}

export function watchSignals(): SignalWatch {
  let on: (signal: string) => void = () => undefined;
  const stop = () => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const received = new Promise<string>((resolve) => {
    on = (signal: string) => {
      stop();
      resolve(signal);
    };
  });
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { received, stop };
}

/**
 * Runs a command that stops when `until` resolves; without one, on the first SIGINT or SIGTERM,
 * listened to only while the command runs (whether it returns or throws).
 */
export async function withStopSignal<T>(until: Promise<unknown> | undefined, command: (until: Promise<unknown>) => Promise<T>): Promise<T> {
  if (until !== undefined) return command(until);
  const watch = watchSignals();
  try {
    return await command(watch.received);
  } finally {
    watch.stop();
  }
}
