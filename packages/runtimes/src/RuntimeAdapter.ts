import { token } from '@loadout/kernel';
import type { RuntimeEnvironment } from './RuntimeEnvironment.js';

/**
 * Who owns what a runtime finds in a root: the project's and the user's folders may hold managed
 * and unmanaged skills; `builtin` roots are the runtime's own (read, never written); `namespaced`
 * roots hold plugin skills the runtime names `plugin:skill`, so they never collide with a plain
 * name and are stated but not scanned.
 */
export type RootScope = 'project' | 'user' | 'builtin' | 'namespaced';

/** Which of Loadout's skills an adapter writes into a root. */
export type WriteTarget = 'project' | 'user';

/** One folder a runtime scans for skills. */
export interface DiscoveryRoot {
  /** Absolute path of the skills folder. */
  readonly dir: string;
  readonly scope: RootScope;
  /**
   * How deep the runtime looks for `SKILL.md` below the root: 1 reads `<root>/<dir>/SKILL.md`
   * only; Codex walks nested folders.
   */
  readonly depth: number;
  /** The Loadout skills written here: project-level into the project's root, the rest into the user's. */
  readonly writes: WriteTarget | null;
  /** Why the root is scanned, for the adapter matrix, e.g. `repository ancestor`. */
  readonly note: string;
}

/** How a runtime treats two skills with one name in two of its roots. */
export type SameNameRule =
  /** The higher-precedence root wins; the other copy is hidden. */
  | 'first-wins'
  /** Every copy is listed, so the agent sees the name twice. */
  | 'all-listed'
  /** Not verified on a current build: the adapter writes nothing. */
  | 'unverified';

/**
 * What Loadout knows about one agent runtime: the roots it scans for a project, in precedence
 * order (highest first), and whether that knowledge is verified. Planning compares what every root
 * of one runtime would show under one name; the adapter itself never writes.
 *
 * @example
 * contribute(container, RuntimeAdapters, {
 *   name: 'my-agent', verified: true, verifiedOn: '2026-12-02', sameName: 'first-wins', sources: [...],
 *   discoveryRoots: (project, env) => [{ dir: path.join(env.home, '.my-agent/skills'), scope: 'user', depth: 1, writes: 'user', note: 'personal' }],
 * });
 */
export interface RuntimeAdapter {
  /** The name used on the command line, e.g. `claude-code`. */
  readonly name: string;
  /** Whether the discovery roots and same-name rules were checked against the runtime's docs or code. */
  readonly verified: boolean;
  /** The date the facts were last checked, `YYYY-MM-DD`. */
  readonly verifiedOn: string | null;
  readonly sameName: SameNameRule;
  /** Where the facts come from. */
  readonly sources: readonly string[];
  /**
   * The roots the runtime scans when started in `project` (or anywhere, for null), highest
   * precedence first. Pure: reads nothing but the existence of repository markers.
   */
  discoveryRoots(project: string | null, env: RuntimeEnvironment): DiscoveryRoot[];
}
export const RuntimeAdapters = token<RuntimeAdapter>('runtimes.adapters');
