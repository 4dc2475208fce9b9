import path from 'node:path';
import { editJsonText, trackedFs, writeFileAtomicSync } from '@loadout/files';
import { type Diagnostic, isJsonObject } from '@loadout/kernel';
import { z } from 'zod';
import { readRecordFile } from '../readRecordFile.js';
import { readConfigText } from '../mcp/readConfigText.js';
import type { PluginPlacement } from '../pluginsInPlace.js';
import { type RuntimeEnvironment, runtimeFolderIn } from '../RuntimeEnvironment.js';
import { RuntimeChangedDuringApplyError } from '../RuntimeErrors.js';

/** The marketplace Loadout presents its plugins to Claude Code as: `plugin@loadout`. */
export const LOADOUT_MARKETPLACE = 'loadout';
/** Inside the data folder: the marketplace folder (a `marketplace.json` and a link per plugin to its folder) and the record of what Loadout registered. */
const MARKETPLACE_FOLDER = path.join('runtimes', 'claude-code-marketplace');
const REGISTRATION_FILE = path.join('runtimes', 'claude-code-plugins.json');
const NONE_LEFT = 'no plugin is given in place any more';
/** How often a settings file that changed under the edit is read again before the run gives up. */
const ATTEMPTS = 5;

/** One edit of Claude Code's settings (or of Loadout's marketplace folder) the plan makes. */
export interface PluginRegistrationChange {
  readonly action: 'create' | 'update' | 'retire';
  /** `kit@loadout`, or the marketplace itself (`loadout`). */
  readonly name: string;
  /** Absolute path of the file edited. */
  readonly file: string;
  readonly reason: string;
}

/** The Claude Code plugin part of a plan: how each Loadout plugin reaches it, and the settings edits that make it so. */
export interface ClaudePluginPart {
  readonly placements: readonly PluginPlacement[];
  readonly changes: readonly PluginRegistrationChange[];
  readonly findings: readonly Diagnostic[];
  /** What the applier needs; null when nothing is registered and nothing was. */
  readonly target: RegistrationTarget | null;
}

/** Where the registration lives and what it must hold. */
export interface RegistrationTarget {
  readonly dataDir: string;
  /** `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`). */
  readonly settingsFile: string;
  /** `~/.claude/plugins/known_marketplaces.json`: Claude Code 2.1.197 loads a marketplace only once it is recorded there. */
  readonly knownFile: string;
  readonly marketplaceDir: string;
  /** The plugins registered in place once the plan ran: name → folder. */
  readonly wanted: ReadonlyMap<string, string>;
  /** The ids (`kit@loadout`) to turn on and to take away, as planned. */
  readonly enable: readonly string[];
  readonly remove: readonly string[];
}

const recordSchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    settingsFile: z.string(),
    /** The `enabledPlugins` ids Loadout added. */
    plugins: z.array(z.string()),
    /** Whether Loadout added `extraKnownMarketplaces.loadout` and the `known_marketplaces.json` entry. */
    marketplace: z.boolean(),
    known: z.boolean(),
  }),
);
type RegistrationRecord = z.infer<typeof recordSchema>;

const pluginId = (plugin: string): string => `${plugin}@${LOADOUT_MARKETPLACE}`;

/** What Loadout recorded as registered; an empty record when nothing is. */
function readRecord(dataDir: string, settingsFile: string): RegistrationRecord {
  return (
    readRecordFile(dataDir, REGISTRATION_FILE, recordSchema) ?? { version: 1, settingsFile, plugins: [], marketplace: false, known: false }
  );
}

/** A settings file's object. Strict JSON, as `editJsonText` edits it: a file with comments is left alone (its plugins copied). */
function parseObject(text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  const value = JSON.parse(text) as unknown;
  if (!isJsonObject(value)) throw new Error('not a JSON object');
  return value;
}

const objectAt = (value: unknown, key: string): Record<string, unknown> =>
  isJsonObject(value) && isJsonObject(value[key]) ? value[key] : {};

/** The marketplace folder a `source` value points at, when it is a directory source. */
function directorySource(value: unknown): string | null {
  const source = isJsonObject(value) ? value.source : undefined;
  return isJsonObject(source) && source.source === 'directory' && typeof source.path === 'string' ? source.path : null;
}

/**
 * Plans registering the plugins placed in place as Claude Code's own: `enabledPlugins["kit@loadout"]`
 * and one `extraKnownMarketplaces.loadout` (a directory marketplace in Loadout's data folder whose
 * entries are links to the plugins' folders) in the user's `settings.json`, plus the entry Claude
 * Code 2.1.197 records in `plugins/known_marketplaces.json` at its first start (without it that
 * version loads the plugins only from its second start). Every entry Loadout added and no longer
 * wants is taken away; the user's other bytes stay as they are. When the registration cannot be
 * made (a marketplace of that name is the user's, a settings file Loadout cannot read), every
 * plugin is copied instead, with the reason.
 */
export function planClaudePlugins(
  placements: readonly PluginPlacement[],
  env: RuntimeEnvironment,
  dataDir: string,
  show: (absolute: string) => string,
  replace: (why: string) => readonly PluginPlacement[],
): ClaudePluginPart {
  const config = runtimeFolderIn(env.claudeConfig, null);
  const inPlace = placements.filter((placement) => placement.inPlace);
  if (config === null) return { placements: replace('CLAUDE_CONFIG_DIR is relative'), changes: [], findings: [], target: null };
  const settingsFile = path.join(config, 'settings.json');
  const knownFile = path.join(config, 'plugins', 'known_marketplaces.json');
  const marketplaceDir = path.join(dataDir, MARKETPLACE_FOLDER);
  const record = readRecord(dataDir, settingsFile);
  let settings: Record<string, unknown>;
  let known: Record<string, unknown>;
  try {
    settings = parseObject(readConfigText(settingsFile, show(settingsFile)));
    known = parseObject(readConfigText(knownFile, show(knownFile)));
  } catch (error) {
    const why = `${show(settingsFile)} or ${show(knownFile)} cannot be read (${(error as Error).message})`;
    const finding: Diagnostic = {
      code: 'CLAUDE_SETTINGS_UNREADABLE',
      severity: 'warning',
      message: `claude-code: ${why}; its plugins are copied`,
    };
    return { placements: replace(why), changes: [], findings: inPlace.length === 0 ? [] : [finding], target: null };
  }
  const marketplaces = objectAt(settings, 'extraKnownMarketplaces');
  const theirs = (value: unknown, where: string): string | null =>
    value !== undefined && directorySource(value) !== marketplaceDir
      ? `a marketplace named "${LOADOUT_MARKETPLACE}" in ${where} is not Loadout's`
      : null;
  const taken = theirs(marketplaces[LOADOUT_MARKETPLACE], show(settingsFile)) ?? theirs(known[LOADOUT_MARKETPLACE], show(knownFile));
  const placed = taken === null ? placements : replace(taken);
  const wanted = new Map(placed.filter((placement) => placement.inPlace).map((placement) => [placement.plugin, placement.dir]));
  const enabled = objectAt(settings, 'enabledPlugins');
  const changes: PluginRegistrationChange[] = [];
  const enable = [...wanted.keys()].map(pluginId).filter((id) => enabled[id] === undefined);
  const remove = record.plugins.filter((id) => !wanted.has(id.slice(0, id.lastIndexOf('@'))) && enabled[id] !== undefined);
  for (const id of enable) changes.push({ action: 'create', name: id, file: settingsFile, reason: 'read in place from its folder' });
  for (const id of remove) changes.push({ action: 'retire', name: id, file: settingsFile, reason: 'no longer read in place' });
  const some = wanted.size > 0;
  if (taken === null) {
    const entry = (file: string, present: boolean, recorded: boolean, why: string): void => {
      if (some && !present) changes.push({ action: 'create', name: LOADOUT_MARKETPLACE, file, reason: why });
      if (!some && recorded && present) changes.push({ action: 'retire', name: LOADOUT_MARKETPLACE, file, reason: NONE_LEFT });
    };
    entry(
      settingsFile,
      marketplaces[LOADOUT_MARKETPLACE] !== undefined,
      record.marketplace,
      'the marketplace of the plugins Loadout gives in place',
    );
    entry(knownFile, known[LOADOUT_MARKETPLACE] !== undefined, record.known, 'recorded as Claude Code records it at its first start');
    if (!sameMarketplace(marketplaceDir, wanted))
      changes.push({
        action: some ? 'update' : 'retire',
        name: LOADOUT_MARKETPLACE,
        file: path.join(marketplaceDir, '.claude-plugin', 'marketplace.json'),
        reason: some ? `lists ${[...wanted.keys()].join(', ')}` : NONE_LEFT,
      });
  }
  const target: RegistrationTarget = { dataDir, settingsFile, knownFile, marketplaceDir, wanted, enable, remove };
  const nothing = changes.length === 0 && !some && record.plugins.length === 0 && !record.marketplace && !record.known;
  return { placements: placed, changes, findings: [], target: nothing ? null : target };
}

/** The marketplace file's content for these plugins: each entry a link in `plugins/` to the plugin's folder. */
function marketplaceJson(wanted: ReadonlyMap<string, string>): string {
  const plugins = [...wanted.keys()].sort().map((name) => ({ name, source: `./plugins/${name}` }));
  return `${JSON.stringify({ name: LOADOUT_MARKETPLACE, owner: { name: 'Loadout' }, plugins }, null, 2)}\n`;
}

/** Whether the marketplace folder already lists exactly these plugins, each link leading to its folder. */
function sameMarketplace(dir: string, wanted: ReadonlyMap<string, string>): boolean {
  const file = path.join(dir, '.claude-plugin', 'marketplace.json');
  const text = trackedFs.existsSync(file) ? trackedFs.readFileSync(file, 'utf8') : null;
  if (wanted.size === 0) return text === null;
  if (text !== marketplaceJson(wanted)) return false;
  const links = path.join(dir, 'plugins');
  const present = trackedFs.existsSync(links) ? trackedFs.readdirSync(links).sort() : [];
  if (present.join('\0') !== [...wanted.keys()].sort().join('\0')) return false;
  return [...wanted].every(([name, folder]) => {
    try {
      return trackedFs.readlinkSync(path.join(links, name)) === folder;
    } catch {
      return false;
    }
  });
}

/**
 * Makes Claude Code's settings and Loadout's marketplace folder what the plan says: the marketplace
 * folder first (so a Claude Code starting meanwhile finds every plugin it is told of), then each
 * settings file as a read-modify-write that keeps every other byte, redone when the file changed
 * under it, then the record of what Loadout added.
 */
export function applyClaudePlugins(part: ClaudePluginPart, show: (absolute: string) => string): void {
  const target = part.target;
  if (target === null || part.changes.length === 0) return;
  const record = readRecord(target.dataDir, target.settingsFile);
  const some = target.wanted.size > 0;
  trackedFs.mkdirSync(path.join(target.dataDir, 'runtimes'), { recursive: true });
  writeMarketplace(target.marketplaceDir, target.wanted);
  const marketplaceValue = { source: { source: 'directory', path: target.marketplaceDir } };
  editFile(target.settingsFile, show, (current) => {
    const edits: { path: string[]; value: unknown }[] = [];
    const enabled = objectAt(current, 'enabledPlugins');
    for (const id of target.enable) if (enabled[id] === undefined) edits.push({ path: ['enabledPlugins', id], value: true });
    for (const id of target.remove) if (enabled[id] !== undefined) edits.push({ path: ['enabledPlugins', id], value: undefined });
    const marketplaces = objectAt(current, 'extraKnownMarketplaces');
    if (some && marketplaces[LOADOUT_MARKETPLACE] === undefined)
      edits.push({ path: ['extraKnownMarketplaces', LOADOUT_MARKETPLACE], value: marketplaceValue });
    if (!some && record.marketplace && marketplaces[LOADOUT_MARKETPLACE] !== undefined)
      edits.push({ path: ['extraKnownMarketplaces', LOADOUT_MARKETPLACE], value: undefined });
    return dropEmptied(current, edits, ['enabledPlugins', 'extraKnownMarketplaces']);
  });
  editFile(target.knownFile, show, (current) => {
    if (some && current[LOADOUT_MARKETPLACE] === undefined) {
      const value = { ...marketplaceValue, installLocation: target.marketplaceDir, lastUpdated: new Date().toISOString() };
      return [{ path: [LOADOUT_MARKETPLACE], value }];
    }
    if (!some && record.known && current[LOADOUT_MARKETPLACE] !== undefined) return [{ path: [LOADOUT_MARKETPLACE], value: undefined }];
    return [];
  });
  // Any entry named `loadout` left in either file points at Loadout's folder (the plan refuses another): Loadout's to take away.
  const enabledNow = new Set([...record.plugins.filter((id) => !target.remove.includes(id)), ...target.enable]);
  const next: RegistrationRecord = {
    version: 1,
    settingsFile: target.settingsFile,
    plugins: [...enabledNow].sort(),
    marketplace: some,
    known: some,
  };
  writeFileAtomicSync(path.join(target.dataDir, REGISTRATION_FILE), `${JSON.stringify(next, null, 2)}\n`);
}

/**
 * The edits with a container Loadout empties removed whole: a key Loadout's last entry leaves as
 * `{}` goes too, so a settings file with nothing else of Loadout's is byte for byte as before
 * (when the container held only Loadout's entries, it was made for them).
 */
function dropEmptied(
  current: Record<string, unknown>,
  edits: { path: string[]; value: unknown }[],
  containers: readonly string[],
): { path: string[]; value: unknown }[] {
  const result = [...edits];
  for (const container of containers) {
    const entries = Object.keys(objectAt(current, container));
    const removed = new Set(edits.filter((edit) => edit.path[0] === container && edit.value === undefined).map((edit) => edit.path[1]));
    const added = edits.some((edit) => edit.path[0] === container && edit.value !== undefined);
    if (removed.size > 0 && !added && entries.every((key) => removed.has(key))) {
      for (let index = result.length - 1; index >= 0; index -= 1) if (result[index]?.path[0] === container) result.splice(index, 1);
      result.push({ path: [container], value: undefined });
    }
  }
  return result;
}

/** One read-modify-write of a JSON settings file, every other byte kept; a file left with nothing is removed only when it did not exist before Loadout. */
function editFile(
  file: string,
  show: (absolute: string) => string,
  edits: (current: Record<string, unknown>) => { path: (string | number)[]; value: unknown }[],
): void {
  for (let attempt = 1; ; attempt += 1) {
    const before = readConfigText(file, show(file));
    const wanted = edits(parseObject(before));
    if (wanted.length === 0) return;
    const text = editJsonText(before, wanted);
    if (text === null)
      throw new RuntimeChangedDuringApplyError(`${show(file)} cannot be edited safely (duplicate keys or comments); it is left as it is`);
    trackedFs.mkdirSync(path.dirname(file), { recursive: true });
    const unchanged = (): boolean => readConfigText(file, show(file)) === before;
    if (writeFileAtomicSync(file, text, { followLink: true, stillCurrent: unchanged })) return;
    if (attempt >= ATTEMPTS) throw new RuntimeChangedDuringApplyError(`${show(file)} kept changing while applying; run apply again`);
  }
}

/** Writes the marketplace folder afresh: its `marketplace.json` and one link per plugin; removed when no plugin is left. */
function writeMarketplace(dir: string, wanted: ReadonlyMap<string, string>): void {
  if (wanted.size === 0) {
    trackedFs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  const links = path.join(dir, 'plugins');
  trackedFs.mkdirSync(links, { recursive: true });
  for (const name of trackedFs.readdirSync(links)) {
    const folder = wanted.get(name);
    const link = path.join(links, name);
    let current: string | null = null;
    try {
      current = trackedFs.readlinkSync(link);
    } catch {
      current = null;
    }
    if (folder === undefined || current !== folder) trackedFs.rmSync(link, { recursive: true, force: true });
  }
  for (const [name, folder] of wanted) {
    const link = path.join(links, name);
    if (trackedFs.lstatSync(link, { throwIfNoEntry: false }) === undefined) trackedFs.symlinkSync(folder, link, 'dir');
  }
  writeFileAtomicSync(path.join(dir, '.claude-plugin', 'marketplace.json'), marketplaceJson(wanted));
}
