import { type Session, token } from '@loadout/kernel';
import type { ServerRecord } from '@loadout/servers';
import type { RuntimeDocumentSupport } from './documents/RuntimeDocumentSupport.js';
import type { ListingRules } from './listing/ListingRules.js';
import type { RuntimeMcpSupport } from './mcp/RuntimeMcpSupport.js';
import type { RuntimeEnvironment } from './RuntimeEnvironment.js';

/**
 * Who owns what a runtime finds in a root: the project's and the user's folders may hold managed
 * and unmanaged skills; `managed` roots are an administrator's (enterprise or admin skills, read,
 * never written); `builtin` roots are the runtime's own (its system skills); `namespaced` roots hold
 * plugin skills the runtime names `plugin:skill`, so they never collide with a plain name and are
 * stated but not scanned.
 */
export type RootScope = 'project' | 'user' | 'managed' | 'builtin' | 'namespaced';

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
  /**
   * Skills the runtime puts into this folder itself the first time it starts (Codex's system
   * skills): counted as present while the folder does not exist yet.
   */
  readonly installs?: readonly string[];
}

/**
 * How a runtime treats two skills with one name in two of its roots. Roots are listed highest
 * precedence first, so a runtime that lets the last loaded copy win lists its roots in reverse.
 */
export type SameNameRule =
  /** The higher-precedence copy is used; the others are hidden. */
  | 'first-wins'
  /** Every copy is listed (the agent sees the name twice); invoking the name runs the first by precedence. */
  | 'listed-first-runs'
  /** Every copy is listed and none is preferred. */
  | 'all-listed'
  /** Not verified: Loadout writes nothing into roots only this runtime reads. */
  | 'unverified';

/** What a runtime can know about one skill folder when it decides whether to load it. */
export interface SkillFileFacts {
  /** The folder's own name. */
  readonly folderName: string;
  /** The parsed frontmatter; null when `SKILL.md` has none or it cannot be read as YAML. */
  readonly frontmatter: Readonly<Record<string, unknown>> | null;
  /** Whether `SKILL.md` starts with `---` with nothing before it (a byte order mark counts). */
  readonly startsWithFence: boolean;
  /** Whether `SKILL.md` itself is a symbolic link. */
  readonly skillFileIsLink: boolean;
}

/** Names compiled into a runtime: its bundled skills and built-in commands, read from one version. */
export interface CompiledInNames {
  /** The runtime version the list was read from, e.g. `2.1.197`. */
  readonly version: string;
  readonly names: readonly string[];
  /** Whether a skill of one of these names replaces it (true) or is listed beside it (absent, false). */
  readonly replacedBySkills?: boolean;
}

/**
 * What one version of an agent client brings and how it treats names, read from the real client:
 * the names compiled into it, how it lists two skills of one name, and whether a skill named like
 * one of its built-ins replaces the built-in (or is listed beside it).
 */
export interface ClientVersionFacts {
  /** The version the facts were read from, e.g. `2.1.332`. */
  readonly version: string;
  /** The names compiled into it; absent for a client that has none (Codex installs its own as folders). */
  readonly compiledIn?: CompiledInNames;
  readonly sameName: SameNameRule;
  /** Whether a skill in one of its roots hides a compiled-in name (true) or is listed beside it. */
  readonly skillReplacesBuiltIn: boolean;
  /** How it lists a skill of a plugin it installed itself: `plugin:skill`, or the bare skill name. */
  readonly pluginSkillNames: PluginSkillNames;
  /** How a copy of a plugin's agent may be named for it; absent where Loadout writes no agents. */
  readonly copiedAgentNames?: CopiedAgentNames;
}

/** How a client lists a skill of one of its own plugins: `plugin:skill` (namespaced) or `skill` (bare). */
export type PluginSkillNames = 'namespaced' | 'bare';

/**
 * How an agent file Loadout copies from a plugin may name itself: `plugin:agent`, as the client
 * names the agents of the plugins it installs (`plugin-prefixed`), or only `agent` (`bare`), where
 * the client drops an agent file whose `name` holds a colon.
 */
export type CopiedAgentNames = 'plugin-prefixed' | 'bare';

/** One skill of a plugin the client installed and turned on itself, outside Loadout. */
export interface ClientPluginSkill {
  /** The plugin's name, e.g. `superpowers`. */
  readonly plugin: string;
  /** As the client names the installed plugin, e.g. `superpowers@claude-plugins-official`. */
  readonly pluginId: string;
  /** The skill's folder name. */
  readonly skill: string;
  /** Its folder, absolute. */
  readonly dir: string;
  /** The name the client lists the plugin's parts under when it differs from `plugin` (its manifest's `name`). */
  readonly listedAs?: string;
  /** Set when Loadout registered the plugin in the client itself, read in place from its own folder. */
  readonly registeredByLoadout?: boolean;
}

/**
 * How Loadout learns which version of a client is installed, and what it knows per version.
 * `versions` is ordered oldest first; an installed version is planned against the newest entry
 * not newer than it (a version between two measured ones behaves like the older until measured).
 */
export interface ClientVersions {
  /** The command on `PATH`, e.g. `claude`. */
  readonly command: string;
  /** The version in `<command> --version`'s output: the first `N.N.N`. */
  readonly versions: readonly ClientVersionFacts[];
}

/**
 * What Loadout knows about one agent runtime: the roots it scans for a project, in precedence
 * order (highest first), what it refuses to load, and whether that knowledge is verified. Planning
 * compares what every root of one runtime would show under one name; the adapter itself never
 * writes.
 *
 * @example
 * contribute(container, RuntimeAdapters, {
 *   name: 'my-agent', verified: true, verifiedOn: '2026-12-02', sameName: 'first-wins', sources: [...],
 *   discoveryRoots: (project, env) => [{ dir: path.join(env.home, '.my-agent/skills'), scope: 'user', depth: 1, writes: 'user', note: 'personal' }],
 *   refuses: (skill) => (skill.frontmatter === null ? 'my-agent needs frontmatter' : null),
 * });
 */
export interface RuntimeAdapter {
  /** The name used on the command line, e.g. `claude-code`. */
  readonly name: string;
  /** Whether the discovery roots and same-name rule were checked against the runtime's docs, code or behaviour. */
  readonly verified: boolean;
  /** The date the facts were last checked, `YYYY-MM-DD`. */
  readonly verifiedOn: string | null;
  readonly sameName: SameNameRule;
  /** Where the facts come from. */
  readonly sources: readonly string[];
  /** Names the runtime provides below every root, when Loadout keeps a list of them. */
  readonly compiledIn?: CompiledInNames;
  /**
   * The client's command and what Loadout measured per version of it: the plan asks the installed
   * client its version and uses that version's compiled-in names and same-name rule.
   */
  readonly client?: ClientVersions;
  /**
   * Set by the plan, not by the adapter: the skills of the plugins the client installed itself,
   * and how it lists them. A Loadout plugin skill the client already loads from its own plugin of
   * the same name is not written for it again.
   */
  readonly clientPlugins?: readonly ClientPluginSkill[];
  readonly pluginSkillNames?: PluginSkillNames;
  /** Set by the plan from the installed client's version: how a copied plugin agent is named (absent: `plugin-prefixed`). */
  readonly copiedAgentNames?: CopiedAgentNames;
  /**
   * The roots the runtime scans when started in `project` (or anywhere, for null), highest
   * precedence first. Pure: reads nothing but the existence of repository markers.
   */
  discoveryRoots(project: string | null, env: RuntimeEnvironment): DiscoveryRoot[];
  /** Why the runtime would not load a skill folder with these facts, in a few words; null when it would. */
  refuses(skill: SkillFileFacts): string | null;
  /** How it keeps MCP servers, when Loadout writes them for it. */
  readonly mcp?: RuntimeMcpSupport;
  /** How it lists skills in its prompt (budget, cap, order, what it cuts), measured per client version; absent: not observed. */
  readonly listing?: ListingRules;
  /** Where it reads subagents, commands and hooks, and how Loadout's become its own; absent: none confirmed. */
  readonly documents?: RuntimeDocumentSupport;
  /**
   * How to tell the runtime is on this machine: the commands it installs on `PATH` and the folders
   * it keeps in the home folder. A runtime without it is never detected; the owner can still choose
   * it (`loadout runtimes use NAME`).
   */
  presence?(env: RuntimeEnvironment): RuntimePresence;
}

/** What makes a runtime count as installed: any of its commands on `PATH`, or any of its home folders. */
export interface RuntimePresence {
  readonly commands: readonly string[];
  /** Absolute folders the runtime creates the first time it runs (`~/.claude`, `~/.codex`). */
  readonly homes: readonly string[];
}
export const RuntimeAdapters = token<RuntimeAdapter>('runtimes.adapters');

/**
 * A rule that holds back a server a runtime would otherwise be given (a project Loadout does not
 * trust, a plugin not approved): the server is planned as `skip` with the reason, and an entry
 * Loadout wrote for it before is retired. Contributed by the package that owns the rule.
 *
 * @example
 * contribute(container, ServerHolds, { holdReason: (server) => (server.plugin === 'untrusted' ? 'the plugin is not approved' : null) });
 */
export interface ServerHold {
  holdReason(server: ServerRecord, session: Session): string | null;
}
export const ServerHolds = token<ServerHold>('runtimes.serverHolds');
