import type { CapabilityRecord } from '@loadout/kernel';
import type { HookHandler } from './hooksFile.js';

/**
 * Where a hook record keeps its handler as written (command line with every argument, and any
 * field a runtime reads). A symbol key is skipped by `JSON.stringify`, so sessions and answers
 * show the redacted `command`, while trust fingerprints and a runtime writer get the whole.
 */
export const HOOK_HANDLER: unique symbol = Symbol.for('loadout.hooks.handler');

/**
 * One hook: on `event` (`SessionStart`, `PreToolUse` …), when `matcher` matches, run `command`.
 * Read from a hooks file (`hooks/<name>.json`, Claude Code's `hooks.json` shape), one record per
 * handler in it. Hooks run code, so they are runnable: held until the project is trusted or the
 * plugin approved.
 */
export interface HookRecord extends CapabilityRecord {
  readonly kind: 'hook';
  readonly event: string;
  /** What the event's subject must match (a tool name pattern, a session source …); null: every one. */
  readonly matcher: string | null;
  /** How the handler runs: `command` (a shell command line) or a runtime's other kinds (`prompt` …). */
  readonly type: string;
  /** The command line, credentials in it redacted; for a `prompt` handler, its prompt; null for neither. */
  readonly command: string | null;
  /** Seconds the runtime lets it run, when the file says. */
  readonly timeout: number | null;
  readonly [HOOK_HANDLER]?: HookHandler;
}

/** The handler a hook record was read from, as written (command line unredacted). */
export function hookHandlerOf(record: HookRecord): HookHandler | null {
  return record[HOOK_HANDLER] ?? null;
}
