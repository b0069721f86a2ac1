import { CliError } from './cli-error.js';

/** A JSON-RPC endpoint argument: a URL, or host:port taken as http; only http(s). */
export function endpoint(text: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CliError(`"${text}" is not a URL; expected e.g. http://127.0.0.1:8545`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`"${text}": only http and https endpoints are supported`);
  return url.href;
}
