/**
 * The points a move passes, in order. Not every move passes all of them: a plain rename goes
 * straight to `landed` and has no source left to remove.
 *
 * - `staged`: a copy or a rewritten document is complete under a hidden name beside the landing
 * - `landed`: the document is at its landing path
 * - `state-moved`: the surfaced switch was carried (one transaction)
 * - `gates-moved`: gate settings were carried between the roots' `config.json`
 * - `source-hidden`: the source was renamed to a hidden name in its own folder
 * - `source-removed`: the hidden source was deleted
 */
export type TransferStep = 'staged' | 'landed' | 'state-moved' | 'gates-moved' | 'source-hidden' | 'source-removed';

/** Test-only: the environment variable that names a step to die after. */
export const KILL_AFTER_STEP_ENV = 'LOADOUT_LEVELS_KILL_AFTER';

/**
 * Marks a step as done. When `LOADOUT_LEVELS_KILL_AFTER` names it, the process kills itself with
 * SIGKILL right there — no cleanup, no `finally` — so a test can check what an interrupted move
 * leaves behind on disk. Unset (always, outside those tests) it does nothing.
 */
export function transferStep(step: TransferStep): void {
  if (process.env[KILL_AFTER_STEP_ENV] === step) process.kill(process.pid, 'SIGKILL');
}
