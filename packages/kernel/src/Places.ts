import path from 'node:path';
import { token } from './token.js';

/** Where a Loadout workspace keeps its parts. Every path is absolute. */
export interface Places {
  /** The workspace: holds `capabilities/`, `plugins/` and the data folder by default. */
  readonly home: string;
  /** The owner's capabilities repository: the global level root. */
  readonly capabilitiesDir: string;
  /** Cloned plugin repositories, one folder each. */
  readonly pluginsDir: string;
  /** App-local data: the database, the server token, the trash. */
  readonly dataDir: string;
}

/**
 * Reads `LOADOUT_HOME`, `LOADOUT_CAPABILITIES_DIR` and `LOADOUT_DATA_DIR`. An empty variable counts
 * as unset; a relative one is taken from `cwd`.
 */
export function resolvePlaces(env: Readonly<Record<string, string | undefined>>, defaultHome: string, cwd: string = process.cwd()): Places {
  const fromEnv = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : path.resolve(cwd, value);
  };
  const home = fromEnv('LOADOUT_HOME') ?? path.resolve(defaultHome);
  return {
    home,
    capabilitiesDir: fromEnv('LOADOUT_CAPABILITIES_DIR') ?? path.join(home, 'capabilities'),
    pluginsDir: path.join(home, 'plugins'),
    dataDir: fromEnv('LOADOUT_DATA_DIR') ?? path.join(home, '.loadout'),
  };
}
export const Places = token<Places>('kernel.places');
