import path from 'node:path';
import { expandPlaceholders, isJsonObject, readJsonInside } from '@loadout/kernel';
import { type FileReader, isInside } from '@loadout/files';
import { z } from 'zod';
import { type AgentPluginsVersion, agentPluginsVersionOf } from './agentPluginsManifest.js';
import { leavesFolder, pathInside, placeholderLeaving } from './pathInside.js';
import { type PluginPlaces, type PluginServers, ServerCollector } from './PluginServers.js';

const stdioSchema = () =>
  z.strictObject({
    type: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  });
const remoteSchema = () =>
  z.strictObject({
    type: z.enum(['streamable-http', 'sse']),
    url: z.string().min(1),
    headers: z.record(z.string(), z.string()).optional(),
  });
// Built on first use: a command that reads no plugin's mcp.json never builds it.
const Server = z.lazy(() => z.discriminatedUnion('type', [stdioSchema(), remoteSchema()]));
type Stdio = z.infer<ReturnType<typeof stdioSchema>>;
type Remote = z.infer<ReturnType<typeof remoteSchema>>;

const RESERVED_ENV = ['PLUGIN_ROOT', 'PLUGIN_DATA'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Field values: visible characters, spaces and tabs; never CR, LF or NUL.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;

/**
 * Reads an Agent Plugins `mcp.json` at the plugin root. The whole file is disabled (the plugin's
 * skills still load) when it is not a regular file inside the root, not JSON, not exactly
 * `$schema` + `mcpServers`, or names a version other than `plugin.json`'s. Each server is then
 * checked on its own against its closed variant; a bad one is skipped and the others load.
 * `sse` is valid but not a transport Loadout's server documents carry, so it is skipped too.
 */
export function readAgentPluginsServers(places: PluginPlaces, version: AgentPluginsVersion, files: FileReader): PluginServers {
  const file = path.join(places.root, 'mcp.json');
  const collector = new ServerCollector(places, file);
  const found = pathInside(places.root, 'mcp.json', files);
  if (found.type === 'missing') return collector.result();
  if (found.type === 'outside') return disabled(collector, 'it is a link that leads outside the plugin');
  if (found.type !== 'file') return disabled(collector, 'it is not a regular file');
  let raw: unknown;
  try {
    raw = readJsonInside(places.root, file, files);
  } catch (error) {
    return disabled(collector, (error as Error).message);
  }
  if (!isJsonObject(raw)) return disabled(collector, 'it must hold a JSON object');
  const extra = Object.keys(raw).filter((key) => key !== '$schema' && key !== 'mcpServers');
  if (extra.length > 0)
    return disabled(collector, `only "$schema" and "mcpServers" are allowed, not ${extra.map((key) => JSON.stringify(key)).join(', ')}`);
  const schema = raw.$schema;
  const mcpVersion = typeof schema === 'string' ? agentPluginsVersionOf(schema, 'mcp') : null;
  if (mcpVersion === null) return disabled(collector, '"$schema" is missing or names an Agent Plugins version Loadout does not support');
  if (mcpVersion !== version) return disabled(collector, `it targets Agent Plugins ${mcpVersion} but plugin.json targets ${version}`);
  if (!isJsonObject(raw.mcpServers)) return disabled(collector, '"mcpServers" is missing or not an object');
  for (const [name, value] of Object.entries(raw.mcpServers)) {
    const parsed = Server.safeParse(value);
    if (!parsed.success) {
      collector.skip(name, describeIssue(parsed.error.issues[0]));
      continue;
    }
    const server = parsed.data;
    if (server.type === 'stdio') addStdio(collector, places, name, server, files);
    else addRemote(collector, name, server);
  }
  return collector.result();
}

function disabled(collector: ServerCollector, reason: string): PluginServers {
  collector.disable(reason);
  return collector.result();
}

function addStdio(collector: ServerCollector, places: PluginPlaces, name: string, server: Stdio, files: FileReader): void {
  const env = server.env ?? {};
  const reserved = Object.keys(env).filter((key) => RESERVED_ENV.includes(process.platform === 'win32' ? key.toUpperCase() : key));
  if (reserved.length > 0) return collector.skip(name, `"env" may not set ${reserved.join(' or ')}; the client sets it`);
  const command = resolveCommand(places, server.command, files);
  if ('invalid' in command) return collector.skip(name, command.invalid);
  const values = { PLUGIN_ROOT: places.realRoot, PLUGIN_DATA: places.data };
  const cwd = server.cwd === undefined ? places.realRoot : resolveCwd(places, server.cwd, values, files);
  if (typeof cwd !== 'string') return collector.skip(name, cwd.invalid);
  const args = server.args ?? [];
  const leaving = args.find((arg) => placeholderLeaving(arg, values, files) !== null);
  if (leaving !== undefined) return collector.skip(name, `"args" ${JSON.stringify(leaving.slice(0, 80))} leads outside the plugin`);
  const expandedEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) expandedEnv[key] = expandPlaceholders(value, values);
  collector.add(name, {
    name,
    command: command.resolved,
    args: args.map((arg) => expandPlaceholders(arg, values)),
    // The client's own values go last, replacing any same-named entry.
    env: { ...expandedEnv, ...values },
    cwd,
  });
}

/** A bare executable name stays as it is; a `./` path becomes absolute inside the plugin's root. */
function resolveCommand(places: PluginPlaces, command: string, files: FileReader): { resolved: string } | { invalid: string } {
  if (!command.startsWith('./')) {
    if (/[/\\]/.test(command))
      return { invalid: `"command" ${JSON.stringify(command.slice(0, 80))} must be a bare executable name or a ./ path inside the plugin` };
    return { resolved: command };
  }
  const target = path.resolve(places.realRoot, command);
  if (!isInside(places.realRoot, target)) return { invalid: `"command" ${JSON.stringify(command.slice(0, 80))} leads outside the plugin` };
  const found = pathInside(places.realRoot, command, files);
  if (found.type === 'outside')
    return { invalid: `"command" ${JSON.stringify(command.slice(0, 80))} is a link that leads outside the plugin` };
  return { resolved: target };
}

/** `./…`, `${PLUGIN_ROOT}[/…]` or `${PLUGIN_DATA}[/…]`, expanded, resolved and kept inside its base. */
function resolveCwd(places: PluginPlaces, cwd: string, values: Record<string, string>, files: FileReader): string | { invalid: string } {
  const shown = JSON.stringify(cwd.slice(0, 80));
  const inData = /^\$\{PLUGIN_DATA\}(?:\/|$)/.test(cwd);
  if (!cwd.startsWith('./') && !inData && !/^\$\{PLUGIN_ROOT\}(?:\/|$)/.test(cwd)) {
    return { invalid: `"cwd" ${shown} must start with ./, \${PLUGIN_ROOT} or \${PLUGIN_DATA}` };
  }
  const base = inData ? places.data : places.realRoot;
  const resolved = path.resolve(places.realRoot, expandPlaceholders(cwd, values));
  if (leavesFolder(base, resolved, files)) {
    return { invalid: `"cwd" ${shown} leads outside the plugin${inData ? "'s data folder" : ''}` };
  }
  return resolved;
}

function addRemote(collector: ServerCollector, name: string, server: Remote): void {
  const problem = urlProblem(server.url) ?? headersProblem(server.headers ?? {});
  if (problem !== null) return collector.skip(name, problem);
  if (server.type === 'sse')
    return collector.skip(name, 'the legacy HTTP+SSE transport is not one Loadout supports (stdio and streamable-http are)');
  collector.add(name, { name, url: server.url, ...(server.headers === undefined ? {} : { headers: server.headers }) });
}

/** Absolute http(s), no user information or fragment, and https unless the host is loopback. */
function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '"url" is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return '"url" must be an http or https URL';
  if (url.username !== '' || url.password !== '') return '"url" may not carry user information';
  if (url.hash !== '' || text.includes('#')) return '"url" may not carry a fragment';
  if (url.protocol === 'http:' && !isLoopback(url.hostname))
    return '"url" must use https unless its host is localhost or a loopback address';
  return null;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

function headersProblem(headers: Record<string, string>): string | null {
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name.slice(0, 80))} is not a valid HTTP field name`;
    if (!HEADER_VALUE.test(value)) return `header ${name} has a value that is not a valid HTTP field value`;
    const folded = name.toLowerCase();
    if (seen.has(folded)) return `header ${name} appears more than once under different casing`;
    seen.add(folded);
  }
  return null;
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'it is not a valid server entry';
  if (issue.code === 'invalid_union' || (issue.code === 'invalid_value' && issue.path[0] === 'type')) {
    return '"type" must be one of stdio, streamable-http or sse';
  }
  if (issue.code === 'unrecognized_keys')
    return `${issue.keys.map((key) => JSON.stringify(key)).join(', ')} ${issue.keys.length === 1 ? 'is' : 'are'} not allowed for this type`;
  const where = issue.path.length === 0 ? 'the entry' : `"${issue.path.map(String).join('.')}"`;
  return `${where}: ${issue.message}`;
}
