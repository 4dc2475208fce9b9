import type { Diagnostic } from '@loadout/kernel';
import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import type { McpConfigFormat, McpEntryValue } from './McpConfigDocument.js';
import type { RuntimeServerEntry, ServerSpec, ToolListSupport } from './ServerSpec.js';

/** Which of Loadout's servers a configuration file holds: the global level's or the project's. */
export type McpScope = 'user' | 'project';

/** How Loadout knows how a runtime keeps MCP servers; see {@link RuntimeMcpSupport.status}. */
export type McpSupportStatus = 'verified' | 'documented' | 'unconfirmed';

/** One file a runtime reads MCP servers from, and how Loadout writes it. */
export interface McpConfigFile {
  /** Absolute path. */
  readonly file: string;
  readonly scope: McpScope;
  readonly format: McpConfigFormat;
  /** The key holding the servers: `mcpServers`, `mcp_servers`. */
  readonly container: string;
  /** False: read for the plan, never written (a folder relative to wherever the runtime starts). */
  readonly writes: boolean;
  readonly note: string;
  /**
   * Whether the runtime itself takes the lock folder `<file>.lock` (proper-lockfile) when it
   * rewrites the file, as Claude Code does for `~/.claude.json`: Loadout then takes the same one.
   */
  readonly sharedLock: boolean;
  /**
   * Whether the runtime reads this JSON file as JSONC allowing a comma after the last member
   * (OpenCode, VS Code): Loadout then accepts such a file instead of refusing it as invalid JSON.
   */
  readonly trailingCommas?: boolean;
  /** The permission bits of a file Loadout creates (`~/.claude.json` and Codex's config are private). */
  readonly createMode: number;
  /**
   * Set when this target is not a table of servers but the runtime's list of server names it
   * leaves off for the project: the keys leading to that list (`projects`, the project's folder,
   * `disabledMcpServers`). `container` then names the list for messages.
   */
  readonly offList?: readonly string[];
}

/**
 * How a runtime lets a project leave off a server its user configuration defines (a global server
 * the owner switched off for this project):
 * - `entry`: an entry of that name in the project's own file, holding `value` (`enabled = false`),
 *   which the runtime merges over the user's entry
 * - `list`: the server's name in a list of the runtime's ({@link McpConfigFile.offList}), a target
 *   of its own among {@link RuntimeMcpSupport.files}
 */
export type ProjectOffSupport = { readonly kind: 'entry'; readonly value: McpEntryValue } | { readonly kind: 'list' };

/**
 * The key the MCP manifest records a target's entries under: the file, and for a list of names
 * left off the keys leading to it, so those names never mix with the server entries of that file.
 */
export function recordedFileOf(target: McpConfigFile): string {
  return target.offList === undefined ? target.file : `${target.file}#${target.offList.map(encodeURIComponent).join('/')}`;
}

/**
 * How a runtime keeps MCP servers: its files for a project (user scope first), the entry it holds
 * for a server, and what to tell the owner about a project file (trust, approval). Verified
 * against the real client; see docs/runtimes.md.
 *
 * @example
 * const support: RuntimeMcpSupport = {
 *   status: 'documented', verifiedOn: '2026-12-03', sources: ['https://example.com/docs/mcp'],
 *   files: (project, env) => [{ file: path.join(env.home, '.agent.json'), scope: 'user', format: 'json', container: 'servers', writes: true, note: 'user', sharedLock: false, createMode: 0o600 }],
 *   entryFor: (spec) => (spec.transport === 'stdio' ? { value: { command: spec.command, args: [...spec.args] }, notes: [] } : { unsupported: 'stdio only' }),
 * };
 */
export interface RuntimeMcpSupport {
  /**
   * How Loadout knows these facts: `verified` when an end-to-end test installs the runtime's real
   * client, applies, and its own listing shows exactly the plan; `documented` from its docs (and
   * the files its own commands write) alone; `unconfirmed` when not even that: nothing is written.
   */
  readonly status: McpSupportStatus;
  /** The command that makes the runtime list its servers offline, for the matrix: `gemini mcp list`. */
  readonly listing?: string;
  /** The date the facts were last checked, `YYYY-MM-DD`. */
  readonly verifiedOn: string;
  readonly sources: readonly string[];
  files(project: string | null, env: RuntimeEnvironment): McpConfigFile[];
  /** `name`: the entry's name in the file, for a runtime that repeats it inside the entry (Goose). */
  entryFor(spec: ServerSpec, name?: string): RuntimeServerEntry;
  /**
   * How a project leaves off a server of the user's configuration; absent when the runtime has no
   * way to (the server then stays on there, reported as `SERVER_OFF_IN_PROJECT_ONLY`).
   */
  readonly projectOff?: ProjectOffSupport;
  /** Which of a server's tool lists its entry can hold; absent: neither (the lists are reported, not written). */
  readonly toolLists?: ToolListSupport;
  /** What the owner should know about servers going into a project file (`names` are the entries Loadout wants there). */
  projectFindings?(file: string, names: readonly string[], project: string, env: RuntimeEnvironment): Diagnostic[];
}
