import path from 'node:path';
import type { Diagnostic } from '@loadout/kernel';
import type { FileReader } from '@loadout/files';
import { isComponentField } from './pluginComponents.js';
import { pathInside } from './pathInside.js';

/** Parts of a plugin Loadout does not load, by their usual place (agents, commands and hooks it loads as kinds). */
const DEFAULT_PARTS: readonly (readonly [part: string, place: string])[] = [
  ['LSP servers', '.lsp.json'],
  ['output styles', 'output-styles'],
  ['workflows', 'workflows'],
  ['rules', 'rules'],
  ['monitors', 'monitors'],
  ['apps', '.app.json'],
];

/**
 * Marketplace-entry fields that declare parts Loadout does not load from an entry (an entry's
 * `commands`, `agents` and `hooks` among them); a manifest's own `commands`, `agents` and `hooks`
 * are loaded ({@link isComponentField}).
 */
export const UNLOADED_FIELDS: Readonly<Record<string, string>> = {
  commands: 'commands',
  agents: 'agents',
  hooks: 'hooks',
  lspServers: 'LSP servers',
  outputStyles: 'output styles',
  workflows: 'workflows',
  rules: 'rules',
  monitors: 'monitors',
  apps: 'apps',
  themes: 'themes',
};

/**
 * One info diagnostic naming every part of a plugin Loadout does not load: LSP servers, output
 * styles, rules … found at their usual place or declared by a manifest field,
 * plus `extra` (manifests not read, a server file no manifest names). Null when there is none.
 */
export function unloadedParts(
  root: string,
  plugin: string,
  declared: Readonly<Record<string, unknown>>,
  extra: readonly string[],
  files: FileReader,
): Diagnostic | null {
  const parts: string[] = [];
  for (const [part, place] of DEFAULT_PARTS) {
    const found = pathInside(root, place, files);
    if (found.type === 'folder') parts.push(`${part} (${place}/)`);
    else if (found.type === 'file') parts.push(`${part} (${place})`);
  }
  for (const [field, part] of Object.entries(UNLOADED_FIELDS)) {
    if (declared[field] !== undefined && !isComponentField(field) && !parts.some((named) => named.startsWith(`${part} `)))
      parts.push(`${part} ("${field}" in the manifest)`);
  }
  parts.push(...extra);
  if (parts.length === 0) return null;
  return {
    code: 'PLUGIN_PARTS_NOT_LOADED',
    severity: 'info',
    path: path.resolve(root),
    message: `plugin ${plugin}: Loadout loads skills, MCP servers, agents, commands and hooks (and its own kinds); it does not load ${parts.join(', ')}`,
  };
}
