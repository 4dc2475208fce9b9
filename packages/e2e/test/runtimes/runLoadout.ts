import type { Machine } from '@loadout/runtimes/testing';
import { type CliRun, spawnLoadout } from '../spawnLoadout.js';

/**
 * Runs the built `loadout` the way a user would, with HOME and the runtimes' folders in the temp
 * folder, and `env` besides.
 */
export function runLoadout(m: Machine, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return spawnLoadout(
    args,
    {
      ...m.env,
      LOADOUT_HOME: m.places.home,
      LOADOUT_CAPABILITIES_DIR: m.places.capabilitiesDir,
      LOADOUT_DATA_DIR: m.places.dataDir,
      ...env,
    },
    m.base,
  );
}
