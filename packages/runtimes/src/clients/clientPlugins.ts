import path from 'node:path';
import { isJsonObject } from '@loadout/kernel';
import { parse as parseJsonc } from 'jsonc-parser';
import { getStaticTOMLValue, parseTOML } from 'toml-eslint-parser';
import { readConfigText } from '../mcp/readConfigText.js';
import type { ClientPluginSkill, RuntimeAdapter } from '../RuntimeAdapter.js';
import { type RuntimeEnvironment, runtimeFolderIn } from '../RuntimeEnvironment.js';
import type { SourceSkill } from '../SourceSkill.js';
import { trackedFs } from '@loadout/files';

/**
 * The skills of the plugins a client has installed and turned on itself (`claude plugin install`,
 * `codex plugin add`), read the way the client finds them. A file that cannot be read counts as
 * no plugins: the client would not load them either.
 */
export function clientPluginSkills(runtime: string, project: string | null, env: RuntimeEnvironment): ClientPluginSkill[] {
  if (runtime === 'claude-code') return claudeCodePluginSkills(project, env);
  if (runtime === 'codex') return codexPluginSkills(project, env);
  return [];
}

/** A file's parsed content; null when it is missing or cannot be read or parsed. */
function readParsed(file: string, parse: (text: string) => unknown): Record<string, unknown> | null {
  try {
    const text = readConfigText(file, path.basename(file));
    if (text === null) return null;
    const value = parse(text);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

const readJson = (file: string) => readParsed(file, (text) => parseJsonc(text) as unknown);

/** The skill folders of a plugin folder: `skills/<name>/SKILL.md`, named by their folder. */
function skillsIn(pluginDir: string, plugin: string, pluginId: string): ClientPluginSkill[] {
  const skillsDir = path.join(pluginDir, 'skills');
  let names: string[];
  try {
    names = trackedFs.readdirSync(skillsDir).sort();
  } catch {
    return [];
  }
  return names
    .filter((name) => !name.startsWith('.') && trackedFs.existsSync(path.join(skillsDir, name, 'SKILL.md')))
    .map((name) => ({ plugin, pluginId, skill: name, dir: path.join(skillsDir, name) }));
}

/**
 * Claude Code: every `name@marketplace` that a settings file turns on (`enabledPlugins` in the
 * user's `settings.json`, the project's `.claude/settings.json` and `.claude/settings.local.json`,
 * a later file overriding an earlier one) and `plugins/installed_plugins.json` records. A plugin
 * from a directory marketplace is read where the marketplace points (`known_marketplaces.json`),
 * as Claude Code does when its cache holds no copy.
 */
function claudeCodePluginSkills(project: string | null, env: RuntimeEnvironment): ClientPluginSkill[] {
  const config = runtimeFolderIn(env.claudeConfig, project);
  if (config === null) return [];
  const settingsFiles = [path.join(config, 'settings.json')];
  if (project !== null)
    settingsFiles.push(path.join(project, '.claude', 'settings.json'), path.join(project, '.claude', 'settings.local.json'));
  const enabled = new Map<string, boolean>();
  for (const file of settingsFiles) {
    const plugins = readJson(file)?.enabledPlugins;
    if (!isJsonObject(plugins)) continue;
    for (const [id, on] of Object.entries(plugins)) if (typeof on === 'boolean') enabled.set(id, on);
  }
  const installed = readJson(path.join(config, 'plugins', 'installed_plugins.json'))?.plugins;
  const marketplaces = readJson(path.join(config, 'plugins', 'known_marketplaces.json'));
  const skills: ClientPluginSkill[] = [];
  for (const [id, on] of enabled) {
    const at = id.lastIndexOf('@');
    if (!on || at <= 0) continue;
    const plugin = id.slice(0, at);
    const records = isJsonObject(installed) ? installed[id] : undefined;
    const first = Array.isArray(records) ? (records[0] as unknown) : undefined;
    const cached = isJsonObject(first) && typeof first.installPath === 'string' ? first.installPath : null;
    const folder =
      cached !== null && trackedFs.existsSync(cached) ? cached : directoryMarketplacePlugin(marketplaces?.[id.slice(at + 1)], plugin);
    if (folder !== null) skills.push(...skillsIn(folder, plugin, id));
  }
  return skills;
}

/** Where a directory marketplace keeps `plugin`: its `marketplace.json` entry's `./folder`. */
function directoryMarketplacePlugin(marketplace: unknown, plugin: string): string | null {
  if (!isJsonObject(marketplace) || typeof marketplace.installLocation !== 'string') return null;
  const root = marketplace.installLocation;
  const entries = readJson(path.join(root, '.claude-plugin', 'marketplace.json'))?.plugins;
  if (!Array.isArray(entries)) return null;
  for (const entry of entries as unknown[]) {
    if (!isJsonObject(entry) || entry.name !== plugin || typeof entry.source !== 'string') continue;
    const folder = path.resolve(root, entry.source);
    return folder.startsWith(`${path.resolve(root)}${path.sep}`) ? folder : null;
  }
  return null;
}

/**
 * Codex: every `[plugins."name@marketplace"]` with `enabled = true` in `$CODEX_HOME/config.toml`,
 * read from the copy `codex plugin add` made in `$CODEX_HOME/plugins/cache/<marketplace>/<name>/<version>`
 * (Codex loads a plugin from that copy only; the newest version folder when there are several).
 */
function codexPluginSkills(project: string | null, env: RuntimeEnvironment): ClientPluginSkill[] {
  const codexHome = runtimeFolderIn(env.codexHome, project);
  if (codexHome === null) return [];
  const config = readParsed(path.join(codexHome, 'config.toml'), (text) => getStaticTOMLValue(parseTOML(text)) as unknown);
  const plugins = config?.plugins;
  if (!isJsonObject(plugins)) return [];
  const skills: ClientPluginSkill[] = [];
  for (const [id, settings] of Object.entries(plugins)) {
    const at = id.lastIndexOf('@');
    if (at <= 0 || !isJsonObject(settings) || settings.enabled !== true) continue;
    const plugin = id.slice(0, at);
    const cache = path.join(codexHome, 'plugins', 'cache', id.slice(at + 1), plugin);
    let versions: string[];
    try {
      versions = trackedFs.readdirSync(cache).sort(new Intl.Collator('en', { numeric: true }).compare);
    } catch {
      continue;
    }
    const newest = versions.at(-1);
    if (newest !== undefined) skills.push(...skillsIn(path.join(cache, newest), plugin, id));
  }
  return skills;
}

/** The client's own plugin skill a Loadout plugin skill duplicates: same plugin name, same folder name. */
export function clientPluginCopy(adapter: RuntimeAdapter | undefined, source: SourceSkill): ClientPluginSkill | undefined {
  const plugin = source.source.plugin;
  if (plugin === null || adapter?.clientPlugins === undefined) return undefined;
  return adapter.clientPlugins.find((skill) => skill.plugin === plugin && skill.skill === source.folderName);
}

/** The name a client lists one of its own plugin skills under. */
export function clientPluginSkillName(adapter: RuntimeAdapter, skill: ClientPluginSkill): string {
  return adapter.pluginSkillNames === 'bare' ? skill.skill : `${skill.listedAs ?? skill.plugin}:${skill.skill}`;
}
