import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import { type EntryShape, shapedEntry } from './EntryShape.js';
import type { McpEntryValue } from './McpConfigDocument.js';
import type { McpConfigFile, McpSupportStatus, RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import { trackedFs } from '@loadout/files';

/** One of a runtime's JSON files: where it is and what it serves. */
export interface JsonRuntimeFile {
  /** Absolute path; null when the runtime has no such file in this environment. */
  readonly file: (env: RuntimeEnvironment, project: string) => string | null;
  readonly note: string;
}

/** A runtime that keeps its MCP servers in JSON files under one key, described as data. */
export interface JsonRuntimeMcp {
  readonly status: McpSupportStatus;
  readonly listing?: string;
  readonly verifiedOn: string;
  readonly sources: readonly string[];
  /**
   * The runtime's own folder (`~/.gemini`): while it does not exist the runtime is not set up on
   * this machine, and Loadout creates none of its files, in the home folder or in a project.
   */
  readonly home: (env: RuntimeEnvironment) => string;
  /** The key holding the servers: `mcpServers`, `mcp`, `amp.mcpServers`. */
  readonly container: string;
  readonly user: JsonRuntimeFile;
  /** The project's file, when the runtime reads one. */
  readonly project: JsonRuntimeFile | null;
  readonly shape: EntryShape;
  /** The runtime's parser allows a comma after the last member of an object or array (JSONC as OpenCode reads it). */
  readonly trailingCommas?: boolean;
  readonly projectFindings?: RuntimeMcpSupport['projectFindings'];
  /**
   * How a project leaves off a server of the user file: an entry of that name in the project's
   * file holding `entry` (OpenCode's `{ "enabled": false }`), or the name in the list at `list`
   * inside the project's file (Gemini CLI's `mcp.excluded`).
   */
  readonly projectOff?: { readonly entry: McpEntryValue } | { readonly list: readonly string[] };
}

/**
 * The MCP support of a runtime that keeps servers in JSON (every runtime but Codex): its user
 * file and its project's file, each edited in place under the runtime's key (jsonc-parser, so a
 * JSONC file keeps its comments), entries shaped by {@link EntryShape}. Nothing is written while
 * the runtime's own folder is absent: the files are read and reported, never created.
 */
export function jsonMcpSupport(runtime: JsonRuntimeMcp): RuntimeMcpSupport {
  return {
    status: runtime.status,
    ...(runtime.listing === undefined ? {} : { listing: runtime.listing }),
    verifiedOn: runtime.verifiedOn,
    sources: runtime.sources,
    files(project, env) {
      const home = runtime.home(env);
      const present = trackedFs.existsSync(home);
      // The note names no absolute path: plans print notes as they are.
      const absent = `; ${runtime.shape.label}'s own folder does not exist (it is not set up here): read, never written`;
      const files: McpConfigFile[] = [];
      const add = (scope: McpConfigFile['scope'], described: JsonRuntimeFile, where: string): void => {
        const file = described.file(env, where);
        if (file === null) return;
        files.push({
          file,
          scope,
          format: 'json',
          container: runtime.container,
          writes: present,
          note: present ? described.note : `${described.note}${absent}`,
          sharedLock: false,
          createMode: scope === 'user' ? 0o600 : 0o644,
          ...(runtime.trailingCommas === true ? { trailingCommas: true } : {}),
        });
      };
      add('user', runtime.user, project ?? env.home);
      if (project !== null && runtime.project !== null) add('project', runtime.project, project);
      const projectFile = files.find((target) => target.scope === 'project');
      const off = runtime.projectOff;
      if (projectFile !== undefined && off !== undefined && 'list' in off) {
        files.push({
          ...projectFile,
          container: off.list.join('.'),
          offList: off.list,
          note: `${projectFile.note}: servers left off here`,
        });
      }
      return files;
    },
    entryFor: (spec) => shapedEntry(runtime.shape, spec),
    ...(runtime.shape.tools === undefined
      ? {}
      : { toolLists: { allow: runtime.shape.tools.allow !== undefined, deny: runtime.shape.tools.deny !== undefined } }),
    ...(runtime.projectOff === undefined
      ? {}
      : {
          projectOff:
            'list' in runtime.projectOff ? { kind: 'list' as const } : { kind: 'entry' as const, value: runtime.projectOff.entry },
        }),
    ...(runtime.projectFindings === undefined ? {} : { projectFindings: runtime.projectFindings }),
  };
}
