import path from 'node:path';
import { type CapabilityRecord, isJsonObject, type Root, type Session } from '@loadout/kernel';
import { parse as parseJsonc } from 'jsonc-parser';
import { trackedFs } from '@loadout/files';

/** The manifest Claude Code reads a plugin folder by. */
export const CLAUDE_PLUGIN_MANIFEST = path.join('.claude-plugin', 'plugin.json');
/**
 * The code of the diagnostic the plugin reader gives a manifest Claude Code refuses
 * (`PLUGIN_MANIFEST_CLAUDE_REFUSES` in @loadout/plugins, which this package does not import).
 */
const CLAUDE_REFUSES_MANIFEST = 'PLUGIN_MANIFEST_CLAUDE_REFUSES';
/** Parts of a plugin Loadout does not read (LSP servers, monitors …): a runtime given the folder would run them unchecked. */
const PARTS_NOT_LOADED = 'PLUGIN_PARTS_NOT_LOADED';
/** The kinds whose capabilities a runtime runs or loads from a plugin folder; a held one keeps the plugin out. */
const PLUGIN_KINDS = ['skill', 'server', 'hook', 'task', 'agent', 'command'] as const;

/** What the decision needs to know of one enabled Loadout plugin, read from a session. */
export interface PluginFacts {
  /** Loadout's name of the plugin. */
  readonly plugin: string;
  /** Its folder (inside its clone), absolute. */
  readonly dir: string;
  /** The name its `.claude-plugin/plugin.json` gives (Claude Code lists its skills as `name:skill`); null without one. */
  readonly manifestName: string | null;
  /** Whether Loadout reads it by another manifest (a root `plugin.json`) than the one Claude Code reads. */
  readonly readByOtherManifest: boolean;
  /** Why Claude Code refuses its manifest; null when it does not. */
  readonly refusedBecause: string | null;
  /** Its capabilities trust holds (unapproved hooks, servers, scripts): `kind id`. */
  readonly held: readonly string[];
  /** The parts it carries that Loadout does not read; null when none. */
  readonly partsNotRead: string | null;
  /** Whether its marketplace entry, not its folder, defines it (a runtime given the folder would not see the entry). */
  readonly definedByEntry: boolean;
  /** The runtime's own installed plugin of the same name (`tools@claude-plugins-official`), or null. */
  readonly ownInRuntime: string | null;
  /** Skill folders of its `skills/` the session does not have on (turned off, or unreadable to Loadout): the runtime given the folder would load them. */
  readonly offSkills: readonly string[];
}

/** How one plugin reaches one runtime. */
export interface PluginPlacement {
  readonly plugin: string;
  readonly dir: string;
  /**
   * True: registered as the runtime's own plugin, read from its folder; false: its skills (and
   * servers) are copied, or not given at all where the runtime has its own plugin of that name.
   */
  readonly inPlace: boolean;
  /** `in place`, `copied: <why>`, or `not given: <its own plugin>`. */
  readonly reason: string;
  /** The name the runtime lists the plugin's parts under (`name:skill`). */
  readonly listedAs: string;
}

/**
 * The one decision of which Loadout plugins a runtime reads in place, as its own plugins, and
 * which get their parts copied, each with its reason. Only Claude Code can (docs/runtimes.md, "How
 * plugins reach each runtime"); for every other runtime every plugin is copied. A plugin read in
 * place brings everything it carries (skills, agents, commands, hooks, servers) and none of it may
 * be copied or written for that runtime too. A plugin is never given in place when the runtime
 * would then run something trust holds, something Loadout does not read, or would refuse it.
 *
 * @param blocked why no plugin can be registered in this runtime now (e.g. its marketplace name is
 *   taken); null when they can
 */
export function placePlugins(runtime: string, plugins: readonly PluginFacts[], blocked: string | null = null): PluginPlacement[] {
  return plugins.map((facts) => {
    const placement = (reason: string | null): PluginPlacement => ({
      plugin: facts.plugin,
      dir: facts.dir,
      inPlace: reason === null,
      reason: reason === null ? 'in place' : `copied: ${reason}`,
      listedAs: facts.manifestName ?? facts.plugin,
    });
    if (runtime !== 'claude-code') return placement(`${runtime} cannot load a plugin folder in place`);
    if (facts.ownInRuntime !== null)
      return { ...placement(null), inPlace: false, reason: `not given: ${runtime} loads its own plugin ${facts.ownInRuntime}` };
    if (facts.manifestName === null) return placement(`not a Claude Code plugin (no ${CLAUDE_PLUGIN_MANIFEST})`);
    if (facts.readByOtherManifest) return placement(`Loadout reads it by another manifest than Claude Code would`);
    if (facts.refusedBecause !== null) return placement(`Claude Code refuses its manifest (${facts.refusedBecause})`);
    if (facts.held.length > 0) return placement(`held (${facts.held.join(', ')} not approved; Claude Code would run it)`);
    if (facts.offSkills.length > 0)
      return placement(
        `its skill${facts.offSkills.length === 1 ? '' : 's'} ${facts.offSkills.join(', ')} ${facts.offSkills.length === 1 ? 'is' : 'are'} not on in Loadout; Claude Code would load the whole folder`,
      );
    if (facts.partsNotRead !== null) return placement(`it carries parts Loadout does not read (${facts.partsNotRead})`);
    if (facts.definedByEntry) return placement('its marketplace entry defines it, which Claude Code would not see');
    return placement(blocked);
  });
}

/** The facts of every enabled plugin of `session` (a global session: a runtime's user settings serve every project). */
export function readPluginFacts(session: Session): PluginFacts[] {
  const held = new Map<string, string[]>();
  const skillFolders = new Map<string, Set<string>>();
  for (const record of session.recordsOf<CapabilityRecord>('skill')) {
    if (record.plugin === null) continue;
    const folders = skillFolders.get(record.plugin) ?? new Set<string>();
    folders.add(path.dirname(record.path));
    skillFolders.set(record.plugin, folders);
  }
  for (const kind of PLUGIN_KINDS) {
    for (const record of session.recordsOf<CapabilityRecord>(kind)) {
      if (record.plugin === null || record.held === undefined) continue;
      held.set(record.plugin, [...(held.get(record.plugin) ?? []), `${kind} ${record.id}`]);
    }
  }
  return session.roots.flatMap((root) =>
    root.plugin === null ? [] : [factsOf(root, root.plugin, held.get(root.plugin) ?? [], skillFolders.get(root.plugin) ?? new Set())],
  );
}

/** The folders of `<dir>/skills` holding a `SKILL.md` (where Claude Code looks) that are not among `on`. */
function offSkillsIn(dir: string, on: ReadonlySet<string>): string[] {
  const skills = path.join(dir, 'skills');
  let names: string[];
  try {
    names = trackedFs.readdirSync(skills).sort();
  } catch {
    return [];
  }
  return names.filter(
    (name) => !name.startsWith('.') && !on.has(path.join(skills, name)) && trackedFs.existsSync(path.join(skills, name, 'SKILL.md')),
  );
}

function factsOf(root: Root, plugin: string, held: readonly string[], skillFolders: ReadonlySet<string>): PluginFacts {
  const diagnostics = root.layout?.diagnostics ?? [];
  const message = (code: string): string | null => diagnostics.find((finding) => finding.code === code)?.message ?? null;
  const refused = message(CLAUDE_REFUSES_MANIFEST);
  const notRead = message(PARTS_NOT_LOADED);
  return {
    plugin,
    dir: root.dir,
    manifestName: manifestName(root.dir),
    readByOtherManifest: readJsonObject(path.join(root.dir, 'plugin.json'))?.$schema !== undefined,
    refusedBecause: refused === null ? null : (/\(([^)]*)\)/.exec(refused)?.[1] ?? refused),
    held,
    partsNotRead: notRead === null ? null : notRead.replace(/^.*it does not load /, ''),
    definedByEntry: root.layout?.onlyListed === true,
    ownInRuntime: null,
    offSkills: offSkillsIn(root.dir, skillFolders),
  };
}

/** The `name` of a folder's Claude Code manifest; null when there is none or it has no name. */
function manifestName(dir: string): string | null {
  const name = readJsonObject(path.join(dir, CLAUDE_PLUGIN_MANIFEST))?.name;
  return typeof name === 'string' && name !== '' ? name : null;
}

/** A JSON file's object; null when it is missing, unreadable or not an object. */
function readJsonObject(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = trackedFs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const value = parseJsonc(text) as unknown;
  return isJsonObject(value) ? value : null;
}
