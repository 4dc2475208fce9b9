import path from 'node:path';
import { isJsonObject, readJsonInside } from '@loadout/kernel';
import { type FileReader, nodeFileReader } from '@loadout/files';
import { type AgentPluginsManifest, checkAgentPluginsManifest, isAgentPluginsRejection } from './agentPluginsManifest.js';
import { pathInside } from './pathInside.js';

/** The plugin formats Loadout reads. `loadout` is a repository with no manifest: kind folders at its root. */
export type PluginFormat = 'agent-plugins' | 'claude-code' | 'codex' | 'cursor' | 'loadout';

/**
 * The manifests Loadout looks for, in precedence order: a repository with several is read once,
 * by the first that exists. The vendor-neutral format comes first; Claude Code's before Codex's
 * (Codex itself falls back to Claude Code's) and Cursor's.
 */
export const PLUGIN_MANIFESTS: readonly { readonly file: string; readonly format: Exclude<PluginFormat, 'loadout'> }[] = [
  { file: 'plugin.json', format: 'agent-plugins' },
  { file: '.claude-plugin/plugin.json', format: 'claude-code' },
  { file: '.codex-plugin/plugin.json', format: 'codex' },
  { file: '.cursor-plugin/plugin.json', format: 'cursor' },
];

/** The one manifest a plugin is read by. */
export type PluginManifest =
  | {
      readonly format: 'agent-plugins';
      readonly file: string;
      readonly agentPlugins: AgentPluginsManifest;
      readonly others: readonly string[];
    }
  | {
      readonly format: 'claude-code' | 'codex' | 'cursor';
      readonly file: string;
      readonly data: Readonly<Record<string, unknown>>;
      readonly others: readonly string[];
    }
  | {
      readonly format: 'loadout';
      readonly file: null;
      readonly others: readonly string[];
      /**
       * A root `plugin.json` with no `$schema` (written before Agent Plugins, or for another
       * ecosystem): the plugin is read by convention, named by it when it names one.
       */
      readonly plain?: { readonly name: string | null };
    }
  /** A manifest that makes the plugin unreadable: nothing of it loads. */
  | { readonly format: PluginFormat; readonly file: string; readonly rejected: string; readonly others: readonly string[] };

/**
 * Finds and checks the manifest that wins by {@link PLUGIN_MANIFESTS}. A root `plugin.json` is an
 * Agent Plugins manifest and is checked by that specification (a fatal problem rejects the plugin).
 * A vendor manifest must be a JSON object read inside the root; its other fields are the reader's.
 * Every other manifest present is named in `others`, so the owner can see it was not read.
 */
export function findPluginManifest(root: string, files: FileReader = nodeFileReader): PluginManifest {
  const present = PLUGIN_MANIFESTS.filter((manifest) => pathInside(root, manifest.file, files).type !== 'missing');
  const plain = present[0]?.format === 'agent-plugins' ? plainPluginJson(root, files) : undefined;
  const [chosen, ...rest] = plain === undefined ? present : present.slice(1);
  const others = rest.map((manifest) => manifest.file);
  if (chosen === undefined) return { format: 'loadout', file: null, others, ...(plain === undefined ? {} : { plain }) };
  const { file, format } = chosen;
  const found = pathInside(root, file, files);
  if (found.type === 'outside') return { format, file, others, rejected: `${file} is a link that leads outside the plugin` };
  if (found.type !== 'file') return { format, file, others, rejected: `${file} is not a regular file` };
  let raw: unknown;
  try {
    raw = readJsonInside(root, path.join(root, file), files);
  } catch (error) {
    return { format, file, others, rejected: (error as Error).message };
  }
  if (format === 'agent-plugins') {
    const checked = checkAgentPluginsManifest(raw);
    if (isAgentPluginsRejection(checked)) return { format, file, others, rejected: `plugin.json (Agent Plugins): ${checked.rejected}` };
    return { format, file, others, agentPlugins: checked };
  }
  if (!isJsonObject(raw)) return { format, file, others, rejected: `${file} must hold a JSON object` };
  return { format, file, others, data: raw };
}

/**
 * A root `plugin.json` that does not claim Agent Plugins (a JSON object with no `$schema`): read
 * by the other manifests or by convention, taking only its `name`. Undefined when it claims the
 * format (then it is checked by it) or cannot be read as an object (then that refuses the plugin).
 */
function plainPluginJson(root: string, files: FileReader): { readonly name: string | null } | undefined {
  if (pathInside(root, 'plugin.json', files).type !== 'file') return undefined;
  let raw: unknown;
  try {
    raw = readJsonInside(root, path.join(root, 'plugin.json'), files);
  } catch {
    return undefined;
  }
  if (!isJsonObject(raw) || '$schema' in raw) return undefined;
  return { name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : null };
}

/** The name a manifest gives its plugin, or null when it gives none. */
export function manifestName(manifest: PluginManifest): string | null {
  if ('rejected' in manifest) return null;
  if ('agentPlugins' in manifest) return manifest.agentPlugins.name;
  if ('data' in manifest) return typeof manifest.data.name === 'string' && manifest.data.name !== '' ? manifest.data.name : null;
  if ('plain' in manifest) return manifest.plain?.name ?? null;
  return null;
}
