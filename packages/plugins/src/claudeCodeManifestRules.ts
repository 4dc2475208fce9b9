import { isJsonObject } from '@loadout/kernel';

/** The diagnostic a plugin gets when Claude Code would refuse to load its `.claude-plugin/plugin.json`. */
export const CLAUDE_REFUSES_MANIFEST = 'PLUGIN_MANIFEST_CLAUDE_REFUSES';

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
/** A `./…` path to one Markdown file, the only form Claude Code takes for an agent. */
const isAgentPath = (value: unknown): boolean => isString(value) && value.startsWith('./') && value.endsWith('.md');

/**
 * The fields Claude Code checks when it loads a plugin, each with what it accepts (unknown fields
 * it ignores). Measured with `claude plugin validate` and a start of 2.1.197 and 2.1.332
 * (2026-12-05): any one of these failing and Claude Code loads nothing of the plugin, logging
 * `Plugin … has an invalid manifest file … agents: Invalid input`.
 */
const FIELD_RULES: readonly (readonly [field: string, accepts: (value: unknown) => boolean, expected: string])[] = [
  ['version', isString, 'a string'],
  ['description', isString, 'a string'],
  ['author', isJsonObject, 'an object'],
  ['keywords', Array.isArray, 'a list'],
  ['agents', (value) => isAgentPath(value) || (Array.isArray(value) && value.every(isAgentPath)), 'a "./….md" file path or a list of them'],
  ['commands', (value) => isString(value) || isStringList(value) || isJsonObject(value), 'a path, a list of paths or an object'],
  ['skills', (value) => isString(value) || isStringList(value), 'a path or a list of paths'],
  ['hooks', (value) => isString(value) || isJsonObject(value) || Array.isArray(value), 'a path, an object or a list'],
  ['mcpServers', (value) => isString(value) || isJsonObject(value) || Array.isArray(value), 'a path, an object or a list'],
];

/**
 * What makes Claude Code refuse a plugin manifest (`.claude-plugin/plugin.json`), one
 * `field: what it must be` per problem; empty when Claude Code loads it. Loadout itself reads such
 * a plugin by its folders, so this never refuses an install: it decides whether Claude Code can be
 * given the plugin in place or only copies of its skills.
 */
export function claudeCodeManifestProblems(manifest: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const name = manifest.name;
  if (!isString(name) || name.trim() === '') problems.push('name: must be a string');
  else if (/\s/.test(name)) problems.push('name: must not contain spaces');
  for (const [field, accepts, expected] of FIELD_RULES) {
    const value = manifest[field];
    if (value !== undefined && !accepts(value)) problems.push(`${field}: must be ${expected}`);
  }
  return problems;
}
