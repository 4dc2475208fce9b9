import type { Diagnostic } from '@loadout/kernel';
import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import type { McpConfigFormat } from './McpConfigDocument.js';
import type { RuntimeServerEntry, ServerSpec } from './ServerSpec.js';

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
  /** What the owner should know about servers going into a project file (`names` are the entries Loadout wants there). */
  projectFindings?(file: string, names: readonly string[], project: string, env: RuntimeEnvironment): Diagnostic[];
}
