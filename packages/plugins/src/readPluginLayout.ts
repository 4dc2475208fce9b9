import path from 'node:path';
import { type Diagnostic, type InlineDocument, type RootLayout, type RootLayoutSource } from '@loadout/kernel';
import { type FileReader, nodeFileReader, trackedFs } from '@loadout/files';
import { readAgentPluginsServers } from './agentPluginsServers.js';
import { vendorComponentSources } from './pluginComponents.js';
import { CLAUDE_REFUSES_MANIFEST, claudeCodeManifestProblems } from './claudeCodeManifestRules.js';
import { findPluginManifest, type PluginFormat, type PluginManifest } from './findPluginManifest.js';
import { pathInside, withRootListing } from './pathInside.js';
import { MARKETPLACE_INDEXES, type MarketplaceIndex, readMarketplaceIndex } from './readMarketplaceIndex.js';
import type { PluginDefinition } from './PluginDefinition.js';
import { UNLOADED_FIELDS, unloadedParts } from './pluginParts.js';
import type { PluginPlaces, PluginServers } from './PluginServers.js';
import { agentPluginsSkills, collectionSkills, type StraySearch, straySkills, vendorSkillSources } from './pluginSkills.js';
import { readManifestServers, readVendorServerFile } from './vendorServers.js';

/** How a plugin reads: the format and manifest chosen, and where its documents are. */
export interface PluginReading {
  readonly format: PluginFormat;
  /** The manifest read, relative to the root; null when there is none (or the entry is the whole definition). */
  readonly manifest: string | null;
  /** Why nothing of the plugin loads, or null. */
  readonly rejected: string | null;
  readonly layout: RootLayout;
}

export interface ReadPluginOptions {
  /** The root, its real path, and the plugin's data folder. */
  readonly places: PluginPlaces;
  /** The marketplace entry's definition, when the plugin came from one. */
  readonly definition: PluginDefinition | null;
  /** What every path the reading looks at goes through; plain `node:fs` unless told. */
  readonly files?: FileReader;
}

/** The server file a format reads from the root without being told. */
const DEFAULT_SERVER_FILE: Readonly<Record<PluginFormat, string | null>> = {
  'agent-plugins': null,
  'claude-code': '.mcp.json',
  codex: '.mcp.json',
  cursor: 'mcp.json',
  loadout: null,
};

/**
 * Reads a plugin's manifest (one, by precedence) and works out its {@link RootLayout}: where its
 * skills are, which MCP servers it declares (as inline server documents, placeholders expanded),
 * and what the owner should be told — parts not loaded, fields ignored, skills that are nowhere a
 * layout puts them. Read each time a session opens, so an update or a hand edit is seen at once.
 */
export function readPluginLayout(options: ReadPluginOptions): PluginReading {
  return withRootListing(options.places.root, options.files ?? nodeFileReader, (files) => readLayout(options, files));
}

function readLayout(options: ReadPluginOptions, files: FileReader): PluginReading {
  const { places, definition } = options;
  const plugin = places.plugin;
  if (pathInside(places.root, '.', files).type !== 'folder') {
    // The session loader reports a missing plugin folder (PLUGIN_FOLDER_MISSING) for every root;
    // saying it again here would give the owner two diagnostics for one fact.
    const missing = rejected('loadout', null, plugin, places.root, `its folder ${places.root} is missing`);
    return { ...missing, layout: { ...missing.layout, diagnostics: [] } };
  }
  const wholeDefinition = definition !== null && !definition.strict;
  const manifest: PluginManifest = wholeDefinition ? { format: 'loadout', file: null, others: [] } : findPluginManifest(places.root, files);
  if ('rejected' in manifest) return rejected(manifest.format, manifest.file, plugin, places.root, manifest.rejected);
  if (manifest.format === 'agent-plugins' && 'agentPlugins' in manifest) return readAgentPlugin(options, manifest, files);
  const format: PluginFormat = manifest.format === 'loadout' && definition !== null ? definition.format : manifest.format;
  const data = 'data' in manifest ? manifest.data : {};
  const diagnostics: Diagnostic[] = [];
  const manifestFile = manifest.file === null ? places.root : path.join(places.root, manifest.file);
  if ('plain' in manifest && manifest.plain !== undefined) {
    diagnostics.push({
      code: 'PLUGIN_MANIFEST_PLAIN',
      severity: 'warning',
      path: path.join(places.root, 'plugin.json'),
      message: `plugin ${plugin}: plugin.json has no "$schema", so it is not an Agent Plugins manifest: the plugin is read by its folders (skills/, servers/ …)${manifest.plain.name === null ? '' : `, named "${manifest.plain.name}" by it`}`,
    });
  }

  if (manifest.format === 'claude-code' && 'data' in manifest) {
    const problems = claudeCodeManifestProblems(manifest.data);
    if (problems.length > 0) {
      diagnostics.push({
        code: CLAUDE_REFUSES_MANIFEST,
        severity: 'warning',
        path: manifestFile,
        message: `plugin ${plugin}: Claude Code refuses its ${manifest.file} (${problems.join('; ')}) and would load nothing of it; Loadout reads it by its folders and gives Claude Code copies of its skills, not the plugin in place`,
      });
    }
  }

  // Skills: the manifest's paths add to skills/ (a strict entry's too); a whole-definition entry replaces them.
  const listed = [...(wholeDefinition ? [] : asList(data.skills)), ...asList(definition?.skills)];
  const complete = definition !== null && definition.skills !== undefined && (wholeDefinition || definition.atMarketplaceRoot);
  const vendor = vendorSkillSources(places.root, plugin, listed.length === 0 ? undefined : listed, manifestFile, complete, files);
  diagnostics.push(...vendor.diagnostics);
  const collection =
    manifest.format === 'loadout' && definition === null && vendor.sources.length === 0 ? collectionSkills(places.root, files) : [];
  const skills = collection.length === 0 ? vendor : { ...vendor, sources: collection };

  // Servers: the format's default file unless a whole-definition entry names its own, then the manifest's and the entry's.
  const servers: InlineDocument[] = [];
  const take = (found: PluginServers): void => {
    servers.push(...found.documents);
    diagnostics.push(...found.diagnostics);
  };
  const read = new Set<string>();
  const defaultFile = DEFAULT_SERVER_FILE[format];
  const extra: string[] = [...manifest.others.map((other) => `${other} (another manifest; ${manifest.file ?? 'none'} is read)`)];
  if (
    defaultFile !== null &&
    !(wholeDefinition && definition.mcpServers !== undefined) &&
    pathInside(places.root, defaultFile, files).type !== 'missing'
  ) {
    read.add(defaultFile);
    take(readVendorServerFile(places, defaultFile, files));
  }
  if (!wholeDefinition && data.mcpServers !== undefined) take(readManifestServers(places, manifestFile, data.mcpServers, read, files));
  if (definition?.mcpServers !== undefined) take(readManifestServers(places, manifestFile, definition.mcpServers, read, files));
  if (!read.has('.mcp.json') && pathInside(places.root, '.mcp.json', files).type === 'file') {
    extra.push('MCP servers in .mcp.json (no plugin manifest names it part of the plugin)');
  }

  const declared = wholeDefinition ? {} : data;
  for (const field of definition?.parts ?? []) extra.push(`${UNLOADED_FIELDS[field] ?? field} (in its marketplace entry)`);
  const parts = unloadedParts(places.root, plugin, declared, extra, files);
  if (parts !== null) diagnostics.push(parts);
  if (!complete) diagnostics.push(...straySkills(places.root, plugin, skills.sources, straySearch(places.root, files), files));

  const kinds: Record<string, readonly RootLayoutSource[]> = {};
  // A vendor plugin's subagents, commands and hooks are where its runtime looks: its default
  // places, and its manifest's paths (a whole-definition entry's own fields are named as not loaded
  // above). A plugin in Loadout's own layout has kind folders.
  if (format !== 'loadout') {
    const components = vendorComponentSources(places.root, plugin, manifestFile, declared, files);
    Object.assign(kinds, components.kinds);
    diagnostics.push(...components.diagnostics);
  }
  if (wholeDefinition || !isDefaultSkills(skills.sources)) kinds.skills = skills.sources;
  if (servers.length > 0 || wholeDefinition)
    kinds.servers = [...(wholeDefinition ? [] : [{ folder: 'servers' }]), ...servers.map((document) => ({ document }))];
  return {
    format,
    manifest: manifest.file,
    rejected: null,
    layout: { kinds, onlyListed: wholeDefinition, diagnostics },
  };
}

/** An Agent Plugins package: skills from `skills/`, servers from `mcp.json`, nothing from the manifest but its metadata. */
function readAgentPlugin(
  options: ReadPluginOptions,
  manifest: Extract<PluginManifest, { agentPlugins: unknown }>,
  files: FileReader,
): PluginReading {
  const { places } = options;
  const diagnostics: Diagnostic[] = manifest.agentPlugins.ignored.map((message) => ({
    code: 'PLUGIN_MANIFEST_FIELD_IGNORED',
    severity: 'warning',
    path: path.join(places.root, manifest.file),
    message: `plugin ${places.plugin}: plugin.json: ${message}`,
  }));
  const skills = agentPluginsSkills(places.root, places.plugin, files);
  diagnostics.push(...skills.diagnostics);
  const servers = readAgentPluginsServers(places, manifest.agentPlugins.version, files);
  diagnostics.push(...servers.diagnostics);
  const extra = manifest.others.map((other) => `${other} (another manifest; plugin.json is read)`);
  if (pathInside(places.root, '.mcp.json', files).type === 'file')
    extra.push('MCP servers in .mcp.json (an Agent Plugins package declares them in mcp.json)');
  const parts = unloadedParts(places.root, places.plugin, {}, extra, files);
  if (parts !== null) diagnostics.push(parts);
  diagnostics.push(
    ...straySkills(
      places.root,
      places.plugin,
      [{ folder: 'skills' }, ...skills.sources],
      { ...straySearch(places.root, files), groups: skills.groups ?? [] },
      files,
    ),
  );
  return {
    format: 'agent-plugins',
    manifest: manifest.file,
    rejected: null,
    layout: {
      kinds: { skills: skills.sources, servers: [{ folder: 'servers' }, ...servers.documents.map((document) => ({ document }))] },
      onlyListed: false,
      diagnostics,
    },
  };
}

function rejected(format: PluginFormat, manifest: string | null, plugin: string, root: string, reason: string): PluginReading {
  return {
    format,
    manifest,
    rejected: reason,
    layout: {
      kinds: {},
      onlyListed: true,
      diagnostics: [{ code: 'PLUGIN_REJECTED', severity: 'error', path: root, message: `plugin ${plugin} is not loaded: ${reason}` }],
    },
  };
}

/**
 * A repository that is also a marketplace of plugins in its own folders holds their skills there:
 * those are searched for (deep) and the owner is pointed to `marketplace add`. Any other plugin
 * (one whose marketplace lists only itself, like obra/superpowers) gets the cheap search.
 */
function straySearch(root: string, files: FileReader): StraySearch {
  if (!MARKETPLACE_INDEXES.some((candidate) => pathInside(root, candidate.file, files).type === 'file')) return { deep: false };
  let index: MarketplaceIndex;
  try {
    index = readMarketplaceIndex(root, files);
  } catch {
    return { deep: false };
  }
  if (!index.entries.some((entry) => entry.source.kind === 'folder' && entry.source.path !== '')) return { deep: false };
  return {
    deep: true,
    hint: `; this repository is also a marketplace (${index.file}): add it with \`loadout marketplace add\` and install its plugins as NAME@MARKETPLACE`,
  };
}

function asList(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function isDefaultSkills(sources: readonly RootLayoutSource[]): boolean {
  return sources.length === 1 && 'folder' in sources[0]! && sources[0].folder === 'skills';
}

/** `<dataDir>/plugin-data/<plugin>`: the plugin's `PLUGIN_DATA`, kept across updates and removed with the plugin. */
export function pluginDataDir(dataDir: string, plugin: string): string {
  return path.join(dataDir, 'plugin-data', plugin);
}

/** The places a plugin's servers run from; the root's real path when it exists. */
export function pluginPlaces(plugin: string, root: string, dataDir: string): PluginPlaces {
  let realRoot = root;
  try {
    realRoot = trackedFs.realpathSync.native(root);
  } catch {
    // A missing root is reported by the reader.
  }
  return { plugin, root, realRoot, data: pluginDataDir(dataDir, plugin) };
}
