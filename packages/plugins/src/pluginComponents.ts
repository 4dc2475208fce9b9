import type { Diagnostic, InlineDocument, RootLayoutSource } from '@loadout/kernel';
import type { FileReader } from '@loadout/files';
import { manifestPath, pathInside } from './pathInside.js';

/** The kind folders of the parts Claude Code, Codex and Cursor plugins share with Loadout: subagents, commands and hooks. */
export const COMPONENT_FOLDERS = ['agents', 'commands', 'hooks'] as const;
type ComponentFolder = (typeof COMPONENT_FOLDERS)[number];

/** The hooks file a vendor plugin's runtime reads without being told. */
export const DEFAULT_HOOKS_FILE = 'hooks/hooks.json';

/** Where a vendor plugin's agents, commands and hooks are, and what was wrong with what its manifest says. */
export interface ComponentSources {
  readonly kinds: Readonly<Record<ComponentFolder, readonly RootLayoutSource[]>>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Where a Claude Code, Codex or Cursor plugin keeps its subagents, commands and hooks, as its
 * runtime finds them: `agents/` and `commands/` (each `.md` in them) plus the manifest's `agents`
 * and `commands` paths (a file or a folder each, added to the default, never replacing it), and
 * `hooks/hooks.json` plus the manifest's `hooks` (a path to another hooks file, the hooks written
 * inline, or a list of either). Only that file of `hooks/` is a hooks file: the scripts and data
 * beside it are what hooks run. A path must start with `./` and stay inside the plugin; one that
 * does not, or that is missing, is named in a warning and left out.
 *
 * @param manifestFile the manifest's absolute path (inline hooks are reported as declared there)
 * @param declared the manifest's fields; empty for a plugin whose manifest names no components
 */
export function vendorComponentSources(
  root: string,
  plugin: string,
  manifestFile: string,
  declared: Readonly<Record<string, unknown>>,
  files: FileReader,
): ComponentSources {
  const diagnostics: Diagnostic[] = [];
  const report = (message: string): void => {
    diagnostics.push({
      code: 'PLUGIN_COMPONENTS_INVALID',
      severity: 'warning',
      path: manifestFile,
      message: `plugin ${plugin}: ${message}`,
    });
  };
  const markdownSources = (folder: 'agents' | 'commands'): RootLayoutSource[] => {
    const sources: RootLayoutSource[] = pathInside(root, folder, files).type === 'missing' ? [] : [{ folder }];
    for (const relative of listedPaths(declared[folder], folder, report)) {
      if (relative === folder) continue;
      const found = pathInside(root, relative, files);
      if (found.type === 'folder') sources.push({ folder: relative });
      else if (found.type === 'file' && relative.toLowerCase().endsWith('.md')) sources.push({ entry: relative });
      else report(`${folder} path ./${relative} ${describe(found.type, 'a Markdown file or a folder')}; it is ignored`);
    }
    return sources;
  };
  const hooks: RootLayoutSource[] = pathInside(root, DEFAULT_HOOKS_FILE, files).type === 'missing' ? [] : [{ entry: DEFAULT_HOOKS_FILE }];
  const declaredHooks = declared.hooks;
  const items = declaredHooks === undefined ? [] : Array.isArray(declaredHooks) ? declaredHooks : [declaredHooks];
  let inline = 0;
  for (const item of items) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      inline += 1;
      const document: InlineDocument = {
        name: inline === 1 ? 'manifest.json' : `manifest-${inline}.json`,
        path: manifestFile,
        content: item,
      };
      hooks.push({ document });
      continue;
    }
    for (const relative of listedPaths(item, 'hooks', report)) {
      // The runtime reads hooks/hooks.json anyway: naming it again adds nothing.
      if (relative === DEFAULT_HOOKS_FILE) continue;
      const found = pathInside(root, relative, files);
      if (found.type === 'file' && relative.toLowerCase().endsWith('.json')) hooks.push({ entry: relative });
      else report(`hooks path ./${relative} ${describe(found.type, 'a JSON hooks file')}; it is ignored`);
    }
  }
  return { kinds: { agents: markdownSources('agents'), commands: markdownSources('commands'), hooks }, diagnostics };
}

/** The `./` paths a manifest field lists (one text or a list of texts), as paths relative to the root. */
function listedPaths(value: unknown, field: string, report: (message: string) => void): string[] {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value : null;
  if (items === null) {
    report(`"${field}" in the manifest must be a path or a list of paths; it is ignored`);
    return [];
  }
  const paths: string[] = [];
  for (const item of items) {
    const relative = typeof item === 'string' ? manifestPath(item) : null;
    if (relative === null)
      report(`${field} path ${JSON.stringify(item)?.slice(0, 80)} must start with ./ and stay inside the plugin; it is ignored`);
    else if (!paths.includes(relative)) paths.push(relative);
  }
  return paths;
}

function describe(type: string, wanted: string): string {
  if (type === 'missing') return 'does not exist';
  if (type === 'outside') return 'leads outside the plugin';
  return `is not ${wanted}`;
}

/** Whether a manifest field declares a part this module loads (and so is not to be named as not loaded). */
export function isComponentField(field: string): boolean {
  return (COMPONENT_FOLDERS as readonly string[]).includes(field);
}
