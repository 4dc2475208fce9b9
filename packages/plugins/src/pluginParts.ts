import path from 'node:path';
import { type Diagnostic, isJsonObject, readJsonInside } from '@loadout/kernel';
import { type FileReader } from '@loadout/files';
import { pathInside } from './pathInside.js';

/** Parts of a plugin Loadout does not load, by their usual place. */
const DEFAULT_PARTS: readonly (readonly [part: string, place: string])[] = [
  ['commands', 'commands'],
  ['agents', 'agents'],
  ['hooks', 'hooks'],
  ['LSP servers', '.lsp.json'],
  ['output styles', 'output-styles'],
  ['workflows', 'workflows'],
  ['rules', 'rules'],
  ['monitors', 'monitors'],
  ['apps', '.app.json'],
];

/** Manifest and marketplace-entry fields that declare parts Loadout does not load. */
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
 * One info diagnostic naming every part of a plugin Loadout does not load: commands, agents,
 * hooks, LSP servers, output styles, rules … found at their usual place or declared by a field,
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
    if (found.type === 'folder') parts.push(`${part} (${place}/${place === 'hooks' ? hookEvents(root, files) : ''})`);
    else if (found.type === 'file') parts.push(`${part} (${place})`);
  }
  for (const [field, part] of Object.entries(UNLOADED_FIELDS)) {
    if (declared[field] !== undefined && !parts.some((named) => named.startsWith(`${part} `)))
      parts.push(`${part} ("${field}" in the manifest)`);
  }
  parts.push(...extra);
  if (parts.length === 0) return null;
  return {
    code: 'PLUGIN_PARTS_NOT_LOADED',
    severity: 'info',
    path: path.resolve(root),
    message: `plugin ${plugin}: Loadout loads skills and MCP servers (and its own kinds); it does not load ${parts.join(', ')}`,
  };
}

/** The events `hooks/hooks.json` hooks into (`SessionStart` …), so the owner sees what does not run. */
function hookEvents(root: string, files: FileReader): string {
  try {
    const hooks = readJsonInside(root, path.join(root, 'hooks', 'hooks.json'), files);
    const events = isJsonObject(hooks) && isJsonObject(hooks.hooks) ? Object.keys(hooks.hooks) : [];
    return events.length === 0 ? '' : `hooks.json: ${events.slice(0, 10).join(', ')}`;
  } catch {
    return '';
  }
}
