// A replay helper thread's first message: it is up (the reader and the crypto workers send it once
// their modules are loaded, so the replay waits for them before handing out work).

export interface ThreadReady {
  readonly ready: true;
}

export function readyMessage(): ThreadReady {
  return { ready: true };
}

export function isReadyMessage(message: unknown): message is ThreadReady {
  return typeof message === 'object' && message !== null && (message as { ready?: unknown }).ready === true;
}
