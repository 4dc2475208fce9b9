import { z } from 'zod';

/** The Agent Plugins versions Loadout reads, each with its own rules (none is mapped onto another). */
export type AgentPluginsVersion = '1.0.0' | '1.1.0';

const SCHEMA_BASE = 'https://agent-plugins.org/schemas/';

/** The `$schema` a version's `plugin.json` and `mcp.json` carry. */
export function agentPluginsSchema(version: AgentPluginsVersion, file: 'plugin' | 'mcp'): string {
  return `${SCHEMA_BASE}${version}/${file}.schema.json`;
}

const VERSIONS: readonly AgentPluginsVersion[] = ['1.0.0', '1.1.0'];

/** The version a `$schema` value names, or null when Loadout does not know it. Never fetched. */
export function agentPluginsVersionOf(schema: string, file: 'plugin' | 'mcp'): AgentPluginsVersion | null {
  return VERSIONS.find((version) => agentPluginsSchema(version, file) === schema) ?? null;
}

/** Whether a `$schema` value claims to be an Agent Plugins schema at all (known version or not). */
export function isAgentPluginsSchema(schema: unknown): boolean {
  return typeof schema === 'string' && schema.startsWith(SCHEMA_BASE);
}

/** An Agent Plugins name: 1–64 of a-z, 0-9, `-` and `.`, alphanumeric at both ends, never `--` or `..`. */
export const AGENT_PLUGINS_NAME = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

const FIELDS_1_0 = ['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'extensions'];
const FIELDS: Readonly<Record<AgentPluginsVersion, readonly string[]>> = { '1.0.0': FIELDS_1_0, '1.1.0': [...FIELDS_1_0, 'presentation'] };

/**
 * The permitted metadata fields and their types; metadata is checked by JSON type only. Built on
 * first use (as is {@link Presentation}): a command that reads no Agent Plugins manifest never
 * builds them.
 */
const Metadata = z.lazy(() =>
  z.object({
    version: z.string().optional(),
    description: z.string().optional(),
    author: z.strictObject({ name: z.string().optional(), email: z.string().optional(), url: z.string().optional() }).optional(),
    homepage: z.string().optional(),
    repository: z.string().optional(),
    license: z.string().optional(),
    keywords: z.array(z.string()).optional(),
  }),
);
const Presentation = z.lazy(() => z.strictObject({ displayName: z.string().optional(), icon: z.string().optional() }));

/** A valid manifest, with what was reported and ignored on the way. */
export interface AgentPluginsManifest {
  readonly version: AgentPluginsVersion;
  readonly name: string;
  readonly description: string | null;
  readonly keywords: readonly string[];
  /** The label to show (1.1 `presentation.displayName` when set and not empty, else `name`). */
  readonly label: string;
  /** One line each: unknown fields, a non-object `extensions`, an icon that is ignored. The plugin still loads. */
  readonly ignored: readonly string[];
}

/** Why a manifest is fatal: the plugin is rejected and nothing of it is discovered. */
export interface AgentPluginsRejection {
  readonly rejected: string;
}

/**
 * Checks a parsed root `plugin.json` by the Agent Plugins rules of the version its `$schema`
 * names. Fatal: anything but an object, a missing, unknown or malformed `$schema` or `name`, a
 * wrong type on a permitted field, an extra key in `author` (or, in 1.1, in `presentation`).
 * Reported and ignored: each unknown top-level field (`skills` and `mcpServers` too: locations
 * are fixed), a non-object `extensions`, and in 1.1 an icon that is not a `./` path inside.
 * Namespaces in `extensions` are never validated: Loadout implements none.
 */
export function checkAgentPluginsManifest(raw: unknown): AgentPluginsManifest | AgentPluginsRejection {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { rejected: 'plugin.json must hold a JSON object' };
  const manifest = raw as Record<string, unknown>;
  const schema = manifest.$schema;
  if (typeof schema !== 'string' || schema === '') return { rejected: 'the required field "$schema" is missing or not a non-empty string' };
  const version = agentPluginsVersionOf(schema, 'plugin');
  if (version === null) {
    return {
      rejected: `"$schema" names ${JSON.stringify(schema.slice(0, 200))}, an Agent Plugins version Loadout does not support (it reads 1.0.0 and 1.1.0)`,
    };
  }
  const name = manifest.name;
  if (typeof name !== 'string' || name === '') return { rejected: 'the required field "name" is missing or not a non-empty string' };
  if (name.length > 64 || !AGENT_PLUGINS_NAME.test(name)) {
    return {
      rejected: `"name" ${JSON.stringify(name.slice(0, 80))} breaks the naming rules: 1-64 of a-z, 0-9, "-" and ".", a letter or digit at both ends, no "--" or ".."`,
    };
  }
  const metadata = Metadata.safeParse(manifest);
  if (!metadata.success) {
    const issue = metadata.error.issues[0];
    return { rejected: `"${issue?.path.map(String).join('.') ?? '?'}" is invalid: ${issue?.message ?? 'wrong type'}` };
  }
  const ignored: string[] = [];
  const known = FIELDS[version];
  for (const field of Object.keys(manifest)) {
    if (known.includes(field)) continue;
    const hint = field === 'skills' || field === 'mcpServers' ? ' (Agent Plugins reads skills/ and mcp.json at fixed places)' : '';
    ignored.push(`unknown field "${field}" is ignored${hint}`);
  }
  const extensions = manifest.extensions;
  if (extensions !== undefined && (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions))) {
    ignored.push('"extensions" is not an object and is ignored');
  }
  let label = name;
  if (version === '1.1.0' && manifest.presentation !== undefined) {
    const presentation = Presentation.safeParse(manifest.presentation);
    if (!presentation.success) {
      const issue = presentation.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.map(String).join('.')}`;
      return { rejected: `"presentation${where}" is invalid: ${issue?.message ?? 'wrong type'}` };
    }
    const { displayName, icon } = presentation.data;
    if (displayName !== undefined && displayName.trim() !== '') label = displayName;
    if (icon !== undefined && !isPackagePath(icon)) ignored.push('"presentation.icon" is not a ./ path inside the plugin and is ignored');
  }
  return {
    version,
    name,
    description: metadata.data.description ?? null,
    keywords: metadata.data.keywords ?? [],
    label,
    ignored,
  };
}

/** A `./` path that cannot leave its root by its text alone (links are checked where it is read). */
function isPackagePath(value: string): boolean {
  if (!value.startsWith('./')) return false;
  return !value.split(/[/\\]/).includes('..');
}

/** Narrows a check's result. */
export function isAgentPluginsRejection(result: AgentPluginsManifest | AgentPluginsRejection): result is AgentPluginsRejection {
  return 'rejected' in result;
}
