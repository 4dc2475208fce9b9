import { spawnSync } from 'node:child_process';
import { CLI_ENTRY } from '@loadout/cli/testing';
import type { TransferStep } from '@loadout/levels';
import { KILL_AFTER_STEP_ENV, type LevelsWorkspace } from '@loadout/levels/testing';

/** Runs the built `loadout` in the workspace; with `killAfter`, a move SIGKILLs itself after that step. */
export function runLoadout(ws: LevelsWorkspace, args: readonly string[], killAfter?: TransferStep) {
  return spawnSync(process.execPath, [CLI_ENTRY, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LOADOUT_HOME: ws.places.home,
      LOADOUT_CAPABILITIES_DIR: ws.places.capabilitiesDir,
      LOADOUT_DATA_DIR: ws.places.dataDir,
      ...(killAfter === undefined ? {} : { [KILL_AFTER_STEP_ENV]: killAfter }),
    },
  });
}
