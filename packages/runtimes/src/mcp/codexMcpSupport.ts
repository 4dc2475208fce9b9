import path from 'node:path';
import { parse } from 'smol-toml';
import { findRepositoryRoot } from '../findRepositoryRoot.js';
import { type RuntimeEnvironment, runtimeFolderIn } from '../RuntimeEnvironment.js';
import { readConfigText } from './readConfigText.js';
import type { McpConfigFile, RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import {
  hasReference,
  notPassedThrough,
  passThroughEnv,
  type RuntimeServerEntry,
  type ServerSpec,
  toolListEntries,
  wholeReference,
} from './ServerSpec.js';

/**
 * How Codex keeps MCP servers: `[mcp_servers.<name>]` tables in `$CODEX_HOME/config.toml` (the
 * user's) and in `<project>/.codex/config.toml`, which Codex reads only when the project is
 * trusted. Codex does not expand `${VAR}`, so a reference becomes what Codex offers instead:
 * `env_vars` (pass a variable through under its own name), `bearer_token_env_var` and
 * `env_http_headers`; anything else with a reference cannot be written for Codex. It speaks stdio
 * and Streamable HTTP only.
 */
export const codexMcpSupport: RuntimeMcpSupport = {
  status: 'verified',
  listing: 'codex mcp list --json',
  verifiedOn: '2026-12-03',
  sources: [
    'https://developers.openai.com/codex/mcp',
    'https://developers.openai.com/codex/config-reference',
    '@openai/codex 0.171.0: `codex mcp add`, `codex mcp list|get --json`, project trust, `${VAR}` not expanded',
  ],
  files(project, env) {
    const files: McpConfigFile[] = [];
    const home = runtimeFolderIn(env.codexHome, project);
    if (home !== null) {
      files.push({
        file: path.join(home, 'config.toml'),
        scope: 'user',
        format: 'toml',
        container: 'mcp_servers',
        writes: !env.codexHome.relative,
        note: env.codexHome.relative
          ? 'user servers, relative to the working folder (CODEX_HOME is relative): read, never written'
          : 'user servers',
        sharedLock: false,
        createMode: 0o600,
      });
    }
    if (project !== null) {
      files.push({
        file: path.join(project, '.codex', 'config.toml'),
        scope: 'project',
        format: 'toml',
        container: 'mcp_servers',
        writes: true,
        note: 'project servers (read only for a trusted project)',
        sharedLock: false,
        createMode: 0o644,
      });
    }
    return files;
  },
  entryFor: codexEntry,
  // Codex merges the project's `[mcp_servers.<name>]` over the user's table: `enabled = false` alone
  // leaves the server off there (`codex mcp list --json` shows `"enabled": false`, 0.171.0).
  projectOff: { kind: 'entry', value: { enabled: false } },
  // `enabled_tools` and `disabled_tools` (`codex mcp get NAME --json` shows both, 0.171.0).
  toolLists: { allow: true, deny: true },
  projectFindings(file, names, project, env) {
    if (codexTrusts(project, env)) return [];
    return [
      {
        code: 'CODEX_PROJECT_NOT_TRUSTED',
        severity: 'warning',
        path: file,
        message: `codex: ${file} is read only for a trusted project, and this one is not trusted in Codex: ${names.join(', ')} stay unused until you trust it (start codex in the project and choose to trust it)`,
      },
    ];
  },
};

const CODEX_TOOL_KEYS = { allow: 'enabled_tools', deny: 'disabled_tools' } as const;

function codexEntry(spec: ServerSpec): RuntimeServerEntry {
  if (spec.transport !== 'stdio') {
    if (spec.transport !== 'http')
      return { unsupported: `Codex speaks stdio and Streamable HTTP only, not ${spec.transport === 'sse' ? 'HTTP+SSE' : 'WebSocket'}` };
    if (hasReference(spec.url)) return { unsupported: 'Codex does not expand ${VAR} in a URL' };
    const value: Record<string, unknown> = { url: spec.url };
    const literal: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    for (const [header, text] of Object.entries(spec.headers)) {
      const bearer = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text)?.[1];
      const whole = wholeReference(text);
      if (header.toLowerCase() === 'authorization' && bearer !== undefined) value.bearer_token_env_var = bearer;
      else if (whole !== null) fromEnv[header] = whole;
      else if (!hasReference(text)) literal[header] = text;
      else return { unsupported: `Codex does not expand \${VAR}; header ${header} mixes text and a reference` };
    }
    if (Object.keys(literal).length > 0) value.http_headers = literal;
    if (Object.keys(fromEnv).length > 0) value.env_http_headers = fromEnv;
    return { value: { ...value, ...toolListEntries(spec.tools, CODEX_TOOL_KEYS) }, notes: [] };
  }
  if (hasReference(spec.command) || spec.args.some(hasReference) || (spec.cwd !== undefined && hasReference(spec.cwd))) {
    return { unsupported: 'Codex does not expand ${VAR} in a command, its arguments or its working folder' };
  }
  const split = passThroughEnv(spec.env);
  if ('refused' in split) return notPassedThrough('Codex', split.refused);
  const { literal: env, passed } = split;
  return {
    value: {
      command: spec.command,
      ...(spec.args.length === 0 ? {} : { args: [...spec.args] }),
      ...(Object.keys(env).length === 0 ? {} : { env }),
      ...(passed.length === 0 ? {} : { env_vars: passed }),
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      ...toolListEntries(spec.tools, CODEX_TOOL_KEYS),
    },
    notes: [],
  };
}

/**
 * Whether Codex trusts the project: `[projects."<path>"] trust_level = "trusted"` in its user
 * configuration for the project folder or its repository root (what Codex's trust screen writes).
 */
export function codexTrusts(project: string, env: RuntimeEnvironment): boolean {
  const home = runtimeFolderIn(env.codexHome, project);
  if (home === null) return false;
  let projects: unknown;
  try {
    const file = path.join(home, 'config.toml');
    projects = (parse(readConfigText(file, file) ?? '') as { projects?: unknown }).projects;
  } catch {
    return false;
  }
  if (projects === null || typeof projects !== 'object') return false;
  const table = projects as Record<string, { trust_level?: unknown } | undefined>;
  const candidates = [path.resolve(project), findRepositoryRoot(project)].filter((dir): dir is string => dir !== null);
  return candidates.some((dir) => table[dir]?.trust_level === 'trusted');
}
