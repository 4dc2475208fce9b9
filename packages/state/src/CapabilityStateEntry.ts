import type { Level } from '@loadout/kernel';
import type { LoadoutError } from '@loadout/files';

/**
 * Which substrate decided a value, so an owner can see why something is off:
 * - `plugin-disabled` / `plugin-not-installed`: the install floor; nothing stored can lift it
 * - `project-override` / `global-default`: the surfaced switch stored for this project / for all
 * - `declared-default`: nothing stored; the capability's (or gate's) own default
 * - `project-config` / `global-config`: a gate set in the project's / the owner's `config.json`
 * - `untrusted-project` / `unapproved-plugin`: on, but runs something its owner has not trusted
 *   yet (a project's task, a plugin's server): listed, never run, never applied
 */
export type DecidedBy =
  | 'untrusted-project'
  | 'unapproved-plugin'
  | 'plugin-disabled'
  | 'plugin-not-installed'
  | 'project-override'
  | 'global-default'
  | 'declared-default'
  | 'project-config'
  | 'global-config';

/** What decided whether a capability is surfaced (or below the floor). */
export type SurfacedDecidedBy = Extract<
  DecidedBy,
  'plugin-disabled' | 'plugin-not-installed' | 'project-override' | 'global-default' | 'declared-default'
>;

/** What holds an enabled capability back (trust). */
export type HoldDecidedBy = Extract<DecidedBy, 'untrusted-project' | 'unapproved-plugin'>;

/** What decided a gate's configured value. */
export type GateDecidedBy = Extract<DecidedBy, 'project-config' | 'global-config' | 'declared-default'>;

/** One declared gate of a capability, resolved. */
export interface GateState {
  /** The value `config.json` (project first, then the owner's) gives it, else its declared default. */
  readonly configured: boolean;
  /** `enabled && configured`: a gate of a capability that is off is never active. */
  readonly active: boolean;
  readonly decidedBy: GateDecidedBy;
}

/** A copy of the same capability in a later root, set aside by the one that wins. */
export interface ShadowedCopy {
  readonly level: Level;
  readonly plugin: string | null;
  readonly path: string;
}

/**
 * One capability's resolved state. There is one entry per kind and id (case-insensitive): the
 * first root that holds it decides `level`, `plugin` and `path`, the same winner a session would
 * show; the copies it shadows are listed in `shadowed`.
 */
export interface CapabilityStateEntry {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly path: string;
  readonly level: Level;
  /** The plugin that provides it, or null for the owner's own. */
  readonly plugin: string | null;
  /** The capability's root is present: always for the owner's, while installed for a plugin's. */
  readonly installed: boolean;
  /** The on/off switch: stored state, else on. False for a disabled plugin's capability. */
  readonly surfaced: boolean;
  /** `installed && surfaced`: whether the capability is in sessions of this scope at all. */
  readonly enabled: boolean;
  readonly gates: Readonly<Record<string, GateState>>;
  /**
   * Enabled, and not "present but dead": at least one gate active, or no gates declared.
   */
  readonly active: boolean;
  /** What decided `enabled`, or the hold that keeps an enabled capability from running (then `active` is false). */
  readonly decidedBy: SurfacedDecidedBy | HoldDecidedBy;
  /** Why it is held, naming the command that lifts the hold; null when nothing holds it. */
  readonly held: string | null;
  readonly shadowed: readonly ShadowedCopy[];
}

/** What the writer did. `errors` means "not applied"; `warnings` are advice on what was applied. */
export interface SetCapabilityStateResult {
  /** Every capability's state after the write (or as it stands, when the request was refused). */
  readonly capabilities: readonly CapabilityStateEntry[];
  readonly warnings: readonly string[];
  /**
   * Why the request was not applied as asked, each with its own stable `code` (and, for a write
   * that failed, the `cause`); in JSON each is `{ code, message }`. See `StateRequestRefusedError`,
   * `StateDivergedError` and `StateWriteFailedError`; an error a write ran into (a locked
   * `config.json` …) keeps its own code.
   */
  readonly errors: readonly LoadoutError[];
  /**
   * Whether anything was written. False when validation refused the request (then nothing
   * changed); true with errors means the write happened but did not read back as asked.
   */
  readonly written: boolean;
}
