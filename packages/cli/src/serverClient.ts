import path from 'node:path';
import { ConflictError, InvalidInputError, type LoadoutError, NotFoundError, OperationFailedError, trackedFs } from '@loadout/files';
import type { CliContext } from './CliContext.js';

/** The running server of this workspace's data folder, as a command that talks to it needs it. */
export interface ServerAddress {
  /** Where it listens, e.g. `http://127.0.0.1:4477`. */
  readonly url: string;
  /** The token it takes: `LOADOUT_TOKEN`, else the one in the data folder; null when there is none yet. */
  readonly token: string | null;
}

/**
 * Where this workspace's server listens: the address the server wrote into the data folder when it
 * started, else the one `loadout serve` would take (`LOADOUT_PORT`, else 4477, on 127.0.0.1). Only
 * the data folder's address is known to be this workspace's; the fallback may be nobody.
 */
export function serverAddress(cli: CliContext): ServerAddress & { readonly announced: boolean } {
  const announced = cli.features.announcedServerUrl(cli.places.dataDir);
  const port = (cli.env.LOADOUT_PORT ?? '') === '' ? '4477' : (cli.env.LOADOUT_PORT as string);
  const fromEnv = cli.env.LOADOUT_TOKEN ?? '';
  return {
    url: announced ?? `http://127.0.0.1:${port}`,
    token: fromEnv !== '' ? fromEnv : readToken(path.join(cli.places.dataDir, cli.features.TOKEN_FILE)),
    announced: announced !== null,
  };
}

function readToken(file: string): string | null {
  try {
    const token = trackedFs.readFileSync(file, 'utf8').trim();
    return token === '' ? null : token;
  } catch {
    return null;
  }
}

/**
 * Sends one request to the server; null when nobody answers at its address (no server running, or
 * one killed that left its address behind). A refusal comes back as the server's own coded error.
 */
export async function askServer<T>(server: ServerAddress, method: 'GET' | 'POST', route: string): Promise<T | null> {
  let response: Response;
  try {
    response = await fetch(`${server.url}${route}`, {
      method,
      headers: server.token === null ? {} : { authorization: `Bearer ${server.token}` },
      signal: AbortSignal.timeout(5000),
    });
  } catch {
    return null;
  }
  const body = (await response.json().catch(() => null)) as (T & { error?: { code?: string; message?: string } }) | null;
  if (response.ok && body !== null) return body;
  throw serverRefusal(
    response.status,
    body?.error?.code ?? 'SERVER_REFUSED',
    body?.error?.message ?? `the server answered ${response.status}`,
  );
}

/** The server's refusal in the category its HTTP status says, so the exit status matches. */
function serverRefusal(status: number, code: string, message: string): LoadoutError {
  if (status === 404) return new NotFoundError(code, message);
  if (status === 409) return new ConflictError(code, message);
  if (status === 400) return new InvalidInputError(code, message);
  return new OperationFailedError(code, message);
}

/** The screen's address with the token in its fragment, which the screen takes and removes (web/public/api.js); the fragment never reaches a server. */
export function screenAddress(url: string, token: string): string {
  return `${url}/#token=${encodeURIComponent(token)}`;
}
