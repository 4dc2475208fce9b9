import type { Machine } from '@loadout/runtimes/testing';
import { type CliRun, spawnLoadout } from '../spawnLoadout.js';

/**
 * Runs the built `loadout` the way a user would, with HOME and the runtimes' folders in the temp
 * folder, and `env` besides, in `cwd` (the machine's base folder unless given).
 */
export function runLoadout(m: Machine, args: readonly string[], env: Record<string, string> = {}, cwd: string = m.base): Promise<CliRun> {
  return spawnLoadout(
    args,
    {
      ...m.env,
      LOADOUT_HOME: m.places.home,
      LOADOUT_CAPABILITIES_DIR: m.places.capabilitiesDir,
      LOADOUT_DATA_DIR: m.places.dataDir,
      ...env,
    },
    cwd,
  );
}
