import { expandPlaceholders, type Session } from '@loadout/kernel';
import { serverDefinitionOf, type ServerRecord } from '@loadout/servers';
import type { ManifestSource } from '../RuntimeManifest.js';
import type { McpScope } from './RuntimeMcpSupport.js';
import { runtimeServerName, type ServerSpec } from './ServerSpec.js';
import { trackedFs } from '@loadout/files';

/** A Loadout server one kind of configuration file should hold, read once per plan. */
export interface SourceServer {
  readonly target: McpScope;
  /** The Loadout id (`docs.search`), or `loadout` for the bridge. */
  readonly id: string;
  /** The name it takes in a runtime's file (`docs_search-1a2b3c`). */
  readonly name: string;
  readonly spec: ServerSpec;
  readonly source: ManifestSource;
  /** The server document, for reports; null for the bridge. */
  readonly sourcePath: string | null;
  readonly bridge: boolean;
  /** Why it is held back (trust): skipped with this reason (`CAPABILITY_UNTRUSTED`), never written. */
  readonly held: string | null;
  /**
   * A global server the owner switched off for this project: what is written is the runtime's way
   * of leaving it off in the project's view (`RuntimeMcpSupport.projectOff`), not the server.
   */
  readonly off?: boolean;
}

/** The values a plugin's server may name its root by. */
const PLUGIN_ROOT_NAMES = ['PLUGIN_ROOT', 'CLAUDE_PLUGIN_ROOT'];

/**
 * Reads one server record of a session into what a runtime is given. A plugin's server carries
 * the plugin's root: `${PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_ROOT}` in its command, arguments,
 * environment, working folder, URL and headers become the real path of the plugin's root (the
 * runtime does not know the plugin). Null when the record has no definition to read.
 */
export function readSourceServer(record: ServerRecord, target: McpScope, session: Session, held: string | null): SourceServer | null {
  const definition = serverDefinitionOf(record);
  if (definition === null) return null;
  const root = record.plugin === null ? null : (session.roots.find((candidate) => candidate.plugin === record.plugin)?.dir ?? null);
  const values = root === null ? {} : Object.fromEntries(PLUGIN_ROOT_NAMES.map((name) => [name, realPath(root)]));
  const expand = (text: string): string => expandPlaceholders(text, values);
  const expandAll = (map: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value)]));
  let spec: ServerSpec;
  const tools = definition.tools === undefined ? {} : { tools: definition.tools };
  if ('command' in definition) {
    spec = {
      transport: 'stdio',
      command: expand(definition.command),
      args: definition.args.map(expand),
      env: expandAll(definition.env),
      ...(definition.cwd === undefined ? {} : { cwd: expand(definition.cwd) }),
      ...tools,
    };
  } else {
    const url = expand(definition.url);
    const transport = /^wss?:/i.test(url) ? 'ws' : (definition.type ?? 'http');
    spec = { transport, url, headers: expandAll(definition.headers ?? {}), ...tools };
  }
  return {
    target,
    id: record.id,
    name: runtimeServerName(record.id),
    spec,
    source: { id: record.id, level: record.level, plugin: record.plugin },
    sourcePath: record.path,
    bridge: false,
    held,
  };
}

function realPath(dir: string): string {
  try {
    return trackedFs.realpathSync(dir);
  } catch {
    return dir;
  }
}
