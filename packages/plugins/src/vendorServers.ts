import path from 'node:path';
import { expandPlaceholders, isJsonObject, readJsonInside } from '@loadout/kernel';
import { type FileReader } from '@loadout/files';
import { leavesFolder, manifestPath, pathInside, placeholderLeaving } from './pathInside.js';
import { type PluginPlaces, type PluginServers, ServerCollector } from './PluginServers.js';

/**
 * The servers of a Claude Code, Codex or Cursor plugin: a server file (`.mcp.json` and the like)
 * either wrapped in `{ "mcpServers": … }` or a bare map of servers, or an inline map from a
 * manifest or marketplace entry. An entry without `type` is stdio (`command`) or remote (`url`);
 * `http`/`streamable-http` is Streamable HTTP; `sse` is kept as the older HTTP+SSE transport
 * (Claude Code runs it); `ws` is not a transport Loadout's server documents carry and is skipped
 * with a word. `${CLAUDE_PLUGIN_ROOT}` and
 * `${CLAUDE_PLUGIN_DATA}` are expanded wherever Claude Code expands them (command, args, env
 * values, cwd, url, headers); any other `${VAR}` is left for the agent runtime that starts the
 * server. A `./` command becomes absolute inside the root, and the working directory is the
 * plugin's root unless the entry names one.
 */
export function readVendorServerFile(places: PluginPlaces, relative: string, files: FileReader): PluginServers {
  const file = path.join(places.root, relative);
  const collector = new ServerCollector(places, file);
  const found = pathInside(places.root, relative, files);
  if (found.type === 'missing') {
    collector.disable('the file does not exist');
    return collector.result();
  }
  if (found.type !== 'file') {
    collector.disable(found.type === 'outside' ? 'it is a link that leads outside the plugin' : 'it is not a regular file');
    return collector.result();
  }
  let raw: unknown;
  try {
    raw = readJsonInside(places.root, file, files);
  } catch (error) {
    collector.disable((error as Error).message);
    return collector.result();
  }
  if (!isJsonObject(raw)) {
    collector.disable('it must hold a JSON object');
    return collector.result();
  }
  const servers = 'mcpServers' in raw ? raw.mcpServers : raw;
  if (!isJsonObject(servers)) collector.disable('"mcpServers" must be an object');
  else addVendorServers(collector, places, servers, files);
  return collector.result();
}

/** Servers declared inline in `file` (a manifest or a marketplace entry), under the same rules. */
export function readInlineVendorServers(
  places: PluginPlaces,
  file: string,
  servers: Record<string, unknown>,
  files: FileReader,
): PluginServers {
  const collector = new ServerCollector(places, file);
  addVendorServers(collector, places, servers, files);
  return collector.result();
}

/**
 * A manifest's `mcpServers` value: a `./` path, an inline map, or (Cursor) a list of either.
 * Paths already read (the default file) are not read twice.
 */
export function readManifestServers(
  places: PluginPlaces,
  file: string,
  value: unknown,
  alreadyRead: Set<string>,
  files: FileReader,
): PluginServers {
  const documents: PluginServers['documents'][number][] = [];
  const diagnostics: PluginServers['diagnostics'][number][] = [];
  const take = (servers: PluginServers): void => {
    documents.push(...servers.documents);
    diagnostics.push(...servers.diagnostics);
  };
  for (const item of Array.isArray(value) ? value : [value]) {
    if (isJsonObject(item)) {
      take(readInlineVendorServers(places, file, item, files));
    } else if (typeof item === 'string' && manifestPath(item) !== null) {
      const relative = manifestPath(item) as string;
      if (alreadyRead.has(relative)) continue;
      alreadyRead.add(relative);
      take(readVendorServerFile(places, relative, files));
    } else {
      const collector = new ServerCollector(places, file);
      collector.disable(`"mcpServers" ${JSON.stringify(item)?.slice(0, 80) ?? String(item)} is neither a ./ path nor an object of servers`);
      take(collector.result());
    }
  }
  return { documents, diagnostics };
}

function addVendorServers(collector: ServerCollector, places: PluginPlaces, servers: Record<string, unknown>, files: FileReader): void {
  const values = { CLAUDE_PLUGIN_ROOT: places.realRoot, CLAUDE_PLUGIN_DATA: places.data };
  const expand = (text: string): string => expandPlaceholders(text, values);
  for (const [name, entry] of Object.entries(servers)) {
    if (!isJsonObject(entry)) {
      collector.skip(name, 'it is not an object');
      continue;
    }
    const type = entry.type ?? (entry.url !== undefined && entry.command === undefined ? 'http' : 'stdio');
    if (type === 'ws') {
      collector.skip(name, 'the ws transport is not one Loadout supports (stdio, HTTP and SSE are)');
      continue;
    }
    // SSE is carried as it is: Claude Code runs it, and a runtime that does not (Codex) is
    // planned skip with its reason when servers are applied.
    if (type === 'http' || type === 'streamable-http' || type === 'sse') {
      if (typeof entry.url !== 'string' || entry.url === '') {
        collector.skip(name, '"url" is missing');
        continue;
      }
      const headers = stringMap(entry.headers);
      if (headers === null) {
        collector.skip(name, '"headers" must be an object of strings');
        continue;
      }
      collector.add(name, {
        name,
        ...(type === 'sse' ? { type: 'sse' } : {}),
        url: expand(entry.url),
        ...(Object.keys(headers).length === 0
          ? {}
          : { headers: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, expand(value)])) }),
      });
      continue;
    }
    if (type !== 'stdio') {
      collector.skip(name, `"type" ${JSON.stringify(type)} is not stdio, http or streamable-http`);
      continue;
    }
    const args =
      Array.isArray(entry.args) && entry.args.every((arg) => typeof arg === 'string')
        ? (entry.args as string[])
        : entry.args === undefined
          ? []
          : null;
    const env = stringMap(entry.env);
    if (typeof entry.command !== 'string' || entry.command === '') collector.skip(name, '"command" is missing');
    else if (args === null) collector.skip(name, '"args" must be a list of strings');
    else if (env === null) collector.skip(name, '"env" must be an object of strings');
    else if (entry.cwd !== undefined && typeof entry.cwd !== 'string') collector.skip(name, '"cwd" must be a string');
    else {
      const command = expand(entry.command);
      const absolute = command.startsWith('./') ? path.resolve(places.realRoot, command) : command;
      const cwd = typeof entry.cwd === 'string' ? path.resolve(places.realRoot, expand(entry.cwd)) : places.realRoot;
      // What is built on the plugin's folders stays in them, as the Agent Plugins reader requires:
      // a `./` command, a relative or placeholder cwd, a placeholder path in an argument.
      const leaving =
        (command.startsWith('./') && leavesFolder(places.realRoot, absolute, files)) ||
        placeholderLeaving(entry.command, values, files) !== null
          ? `"command" ${JSON.stringify(entry.command.slice(0, 80))}`
          : typeof entry.cwd === 'string' && cwdLeaves(entry.cwd, cwd, values, files)
            ? `"cwd" ${JSON.stringify(entry.cwd.slice(0, 80))}`
            : args
                .filter((arg) => placeholderLeaving(arg, values, files) !== null)
                .map((arg) => `"args" ${JSON.stringify(arg.slice(0, 80))}`)[0];
      if (leaving !== undefined) {
        collector.skip(name, `${leaving} leads outside the plugin`);
        continue;
      }
      const expandedEnv = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, expand(value)]));
      collector.add(name, { name, command: absolute, args: args.map(expand), env: { ...expandedEnv, ...values }, cwd });
    }
  }
}

/**
 * Whether a server's working folder as written (`cwd`, `resolved` against the root) leaves the
 * plugin: one built on a placeholder must stay in that folder, a relative one in the root. An
 * absolute folder written as such is the owner's machine's, as Claude Code takes it.
 */
function cwdLeaves(cwd: string, resolved: string, values: Readonly<Record<string, string>>, files: FileReader): boolean {
  if (placeholderLeaving(cwd, values, files) !== null) return true;
  if (cwd.includes('${') || path.isAbsolute(cwd)) return false;
  return leavesFolder(values.CLAUDE_PLUGIN_ROOT as string, resolved, files);
}

/** An object whose values are all strings (absent counts as empty); null when it is anything else. */
function stringMap(value: unknown): Record<string, string> | null {
  if (value === undefined) return {};
  if (!isJsonObject(value)) return null;
  return Object.values(value).every((item) => typeof item === 'string') ? (value as Record<string, string>) : null;
}
