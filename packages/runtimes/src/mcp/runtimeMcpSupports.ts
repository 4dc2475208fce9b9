import path from 'node:path';
import type { Diagnostic } from '@loadout/kernel';
import { absoluteVariable, type RuntimeEnvironment, xdgConfigHome } from '../RuntimeEnvironment.js';
import type { EntryShape } from './EntryShape.js';
import { jsonMcpSupport } from './jsonMcpSupport.js';
import type { RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import { trackedFs } from '@loadout/files';

/*
 * The MCP support of every runtime that keeps servers in JSON, as data: files, key, entry shapes,
 * reference syntax and status. The facts, their sources and dates are in docs/runtimes.md
 * ("MCP servers in every runtime"); a `verified` one is asked by its own client in
 * packages/e2e/test/runtimes/mcpRuntimes.test.ts.
 */

const NO_WEBSOCKET = (label: string): string => `${label} has no WebSocket transport`;

/** The home folder Gemini CLI uses: `$GEMINI_CLI_HOME` when set, else `HOME`. */
export function geminiHome(env: RuntimeEnvironment): string {
  return absoluteVariable(env.variables.GEMINI_CLI_HOME) ?? env.home;
}

/** Gemini CLI and Qwen Code (a fork of it) lay entries out alike: `httpUrl` for Streamable HTTP, `url` for SSE. */
const geminiShape = (label: string): EntryShape => ({
  label,
  stdio: { envKey: 'env', cwdKey: 'cwd' },
  http: { urlKey: 'httpUrl' },
  sse: { urlKey: 'url' },
  ws: NO_WEBSOCKET(label),
  references: 'dollar-brace',
  defaults: false,
  tools: { allow: 'includeTools', deny: 'excludeTools' },
});

/** Whether a Gemini CLI `trustedFolders.json` trusts the project (or a folder above it). */
function geminiTrusts(project: string, env: RuntimeEnvironment): boolean {
  let rules: unknown;
  try {
    rules = JSON.parse(trackedFs.readFileSync(path.join(geminiHome(env), '.gemini', 'trustedFolders.json'), 'utf8'));
  } catch {
    return false;
  }
  if (rules === null || typeof rules !== 'object') return false;
  const folder = path.resolve(project);
  const within = (dir: string): boolean => folder === dir || folder.startsWith(`${dir}${path.sep}`);
  return Object.entries(rules as Record<string, unknown>).some(
    ([dir, rule]) =>
      (rule === 'TRUST_FOLDER' && within(path.resolve(dir))) || (rule === 'TRUST_PARENT' && within(path.dirname(path.resolve(dir)))),
  );
}

/** Gemini CLI: `~/.gemini/settings.json` and `<project>/.gemini/settings.json`, key `mcpServers`. */
export const geminiMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'gemini mcp list',
  verifiedOn: '2026-12-05',
  sources: [
    'https://geminicli.com/docs/tools/mcp-server',
    'https://geminicli.com/docs/get-started/configuration',
    '@google/gemini-cli 0.61.0: `gemini mcp list`, `gemini skills list`, GEMINI_CLI_HOME read from the bundle',
  ],
  home: (env) => path.join(geminiHome(env), '.gemini'),
  container: 'mcpServers',
  user: { file: (env) => path.join(geminiHome(env), '.gemini', 'settings.json'), note: 'user settings' },
  project: { file: (_env, project) => path.join(project, '.gemini', 'settings.json'), note: 'workspace settings (trusted folders only)' },
  shape: geminiShape('Gemini CLI'),
  // `gemini mcp list` in the project shows a server named there as "Blocked" (0.61.0).
  projectOff: { list: ['mcp', 'excluded'] },
  projectFindings(file, names, project, env): Diagnostic[] {
    if (geminiTrusts(project, env)) return [];
    return [
      {
        code: 'GEMINI_FOLDER_NOT_TRUSTED',
        severity: 'warning',
        path: file,
        message: `gemini-cli: the project is not a trusted folder in Gemini CLI, which then starts no MCP server at all (${names.join(', ')} included); trust it in Gemini CLI (/permissions) to use them`,
      },
    ];
  },
});

/** Qwen Code: `~/.qwen/settings.json` and `<project>/.qwen/settings.json`, key `mcpServers`. */
export const qwenMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'qwen mcp list',
  verifiedOn: '2026-12-05',
  sources: [
    'https://qwenlm.github.io/qwen-code-docs/en/users/features/mcp/',
    '@qwen-code/qwen-code 0.24.4 (Node 22): `qwen mcp list` shows user and project servers, the project ones "Pending approval"',
  ],
  home: (env) => path.join(env.home, '.qwen'),
  container: 'mcpServers',
  user: { file: (env) => path.join(env.home, '.qwen', 'settings.json'), note: 'user settings' },
  project: { file: (_env, project) => path.join(project, '.qwen', 'settings.json'), note: 'project settings (approved in Qwen Code)' },
  shape: geminiShape('Qwen Code'),
  // Its settings reference and bundle (0.24.4) leave out every server named there; `qwen mcp list` does not show it.
  projectOff: { list: ['mcp', 'excluded'] },
  projectFindings: (file, names) => [
    {
      code: 'QWEN_PROJECT_SERVERS_NEED_APPROVAL',
      severity: 'info',
      path: file,
      message: `qwen-code: servers in ${file} (${names.join(', ')}) wait for approval in Qwen Code; Loadout never approves them for you`,
    },
  ],
});

/** OpenCode and Kilo Code (built on OpenCode) lay entries out alike: one command list, `environment`, `{env:NAME}`. */
const openCodeShape = (label: string): EntryShape => ({
  label,
  stdio: { type: 'local', commandWithArgs: true, envKey: 'environment', cwdKey: null },
  http: { type: 'remote', urlKey: 'url' },
  sse: { type: 'remote', urlKey: 'url' },
  ws: NO_WEBSOCKET(label),
  references: 'opencode',
  defaults: false,
});

/** OpenCode's config file in a folder: `opencode.jsonc` when it exists there, else `opencode.json`. */
function openCodeFile(dir: string): string {
  const jsonc = path.join(dir, 'opencode.jsonc');
  return trackedFs.existsSync(jsonc) ? jsonc : path.join(dir, 'opencode.json');
}

/** OpenCode: `~/.config/opencode/opencode.json(c)` and `<project>/opencode.json(c)`, key `mcp`; `{env:NAME}` references. */
export const openCodeMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'opencode debug config',
  verifiedOn: '2026-12-05',
  sources: [
    'https://opencode.ai/docs/mcp-servers',
    'https://opencode.ai/docs/config',
    'opencode-ai 1.18.33: `opencode debug config` (the merged configuration), `opencode mcp list`',
  ],
  home: (env) => path.join(xdgConfigHome(env), 'opencode'),
  container: 'mcp',
  user: { file: (env) => openCodeFile(path.join(xdgConfigHome(env), 'opencode')), note: 'global config' },
  project: { file: (_env, project) => openCodeFile(project), note: 'project config' },
  shape: openCodeShape('OpenCode'),
  // OpenCode merges the project's config over the global one key by key (`opencode debug config`, 1.18.33).
  projectOff: { entry: { enabled: false } },
  // OpenCode parses its config with jsonc-parser's allowTrailingComma (read from its 1.18.33 bundle, asked in mcpRuntimes.test.ts).
  trailingCommas: true,
});

/** Kilo Code's config names, in the order it looks for the one it edits itself. */
const KILO_CONFIG_NAMES = ['kilo.jsonc', 'kilo.json', 'opencode.jsonc', 'opencode.json'] as const;

/** The first of `candidates` that exists, else the first: the file Kilo Code itself would edit. */
function firstExisting(candidates: readonly string[]): string {
  return candidates.find((file) => trackedFs.existsSync(file)) ?? (candidates[0] as string);
}

/**
 * Kilo Code (`kilo`, built on OpenCode): `$XDG_CONFIG_HOME/kilo/kilo.jsonc` (or the first of its
 * other config names that exists) and the project's `.kilo/kilo.jsonc` (or a config it already
 * has in `.kilo/`, `.kilocode/` or the project folder), key `mcp`, OpenCode's entries.
 */
export const kiloCodeMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'kilo debug config',
  verifiedOn: '2026-12-05',
  sources: [
    'https://kilo.ai/docs/automate/mcp/using-in-cli',
    '@kilocode/cli 7.7.7 (its linux-x64 package; 7.8.1 has none on the registry): `kilo debug config`, `kilo debug skill`, `kilo debug paths`, config names and lookup read from the binary',
  ],
  home: (env) => path.join(xdgConfigHome(env), 'kilo'),
  container: 'mcp',
  user: {
    file: (env) => firstExisting([...KILO_CONFIG_NAMES, 'config.json'].map((name) => path.join(xdgConfigHome(env), 'kilo', name))),
    note: 'global config',
  },
  project: {
    file: (_env, project) =>
      firstExisting(['.kilo', '.kilocode', '.'].flatMap((folder) => KILO_CONFIG_NAMES.map((name) => path.join(project, folder, name)))),
    note: 'project config',
  },
  shape: openCodeShape('Kilo Code'),
  // Merged key by key like OpenCode's (`kilo debug config`, 7.7.7).
  projectOff: { entry: { enabled: false } },
  // Kilo Code parses its config as OpenCode does, with jsonc-parser's allowTrailingComma (asked in mcpRuntimes.test.ts).
  trailingCommas: true,
});

/** Copilot CLI's folder: `$COPILOT_HOME`, else `~/.copilot`. */
function copilotHome(env: RuntimeEnvironment): string {
  return absoluteVariable(env.variables.COPILOT_HOME) ?? path.join(env.home, '.copilot');
}

/** Whether Copilot CLI's `config.json` lists the project (or a folder above it) among its trusted folders. */
function copilotTrusts(project: string, env: RuntimeEnvironment): boolean {
  let config: unknown;
  try {
    config = JSON.parse(trackedFs.readFileSync(path.join(copilotHome(env), 'config.json'), 'utf8'));
  } catch {
    return false;
  }
  const folders = (config as { trusted_folders?: unknown } | null)?.trusted_folders;
  if (!Array.isArray(folders)) return false;
  const folder = path.resolve(project);
  return folders.some(
    (dir) => typeof dir === 'string' && (folder === path.resolve(dir) || folder.startsWith(`${path.resolve(dir)}${path.sep}`)),
  );
}

/** GitHub Copilot CLI: `~/.copilot/mcp-config.json` and `<project>/.github/mcp.json`, key `mcpServers`. */
export const copilotCliMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'copilot mcp list --json',
  verifiedOn: '2026-12-05',
  sources: [
    'https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers',
    '@github/copilot 1.0.102: `copilot mcp add` output, `copilot mcp list --json` sources (user, workspace), `trusted_folders`',
  ],
  home: copilotHome,
  container: 'mcpServers',
  user: { file: (env) => path.join(copilotHome(env), 'mcp-config.json'), note: 'user servers' },
  project: { file: (_env, project) => path.join(project, '.github', 'mcp.json'), note: 'workspace servers (trusted folders only)' },
  shape: {
    label: 'Copilot CLI',
    stdio: { type: 'local', envKey: 'env', cwdKey: null, extra: { tools: ['*'] } },
    http: { type: 'http', urlKey: 'url', extra: { tools: ['*'] } },
    sse: { type: 'sse', urlKey: 'url', extra: { tools: ['*'] } },
    ws: NO_WEBSOCKET('Copilot CLI'),
    references: 'dollar-brace',
    defaults: false,
    // Its `tools` is the list of tools it offers (`["*"]`: all); it has no deny list.
    tools: { allow: 'tools' },
  },
  projectFindings(file, names, project, env): Diagnostic[] {
    if (copilotTrusts(project, env)) return [];
    return [
      {
        code: 'COPILOT_FOLDER_NOT_TRUSTED',
        severity: 'warning',
        path: file,
        message: `copilot-cli: Copilot CLI reads ${file} only in a trusted folder, and this project is not one: ${names.join(', ')} stay unused until you trust it (start copilot in the project and choose to trust it)`,
      },
    ];
  },
});

/** Amp: `~/.config/amp/settings.json` and `<project>/.amp/settings.json`, key `amp.mcpServers`. */
export const ampMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'amp mcp list',
  verifiedOn: '2026-12-05',
  sources: ['https://ampcode.com/manual#mcp', '@sourcegraph/amp 0.0.1790142911-g7618fb: `amp mcp list` (workspace and global, offline)'],
  home: (env) => path.join(xdgConfigHome(env), 'amp'),
  container: 'amp.mcpServers',
  user: { file: (env) => path.join(xdgConfigHome(env), 'amp', 'settings.json'), note: 'global settings' },
  project: { file: (_env, project) => path.join(project, '.amp', 'settings.json'), note: 'workspace settings' },
  shape: {
    label: 'Amp',
    stdio: { envKey: 'env', cwdKey: null },
    http: { urlKey: 'url' },
    sse: { urlKey: 'url' },
    ws: NO_WEBSOCKET('Amp'),
    references: 'dollar-brace',
    defaults: false,
  },
});

/** Cursor: `~/.cursor/mcp.json` and `<project>/.cursor/mcp.json`, key `mcpServers`; `${env:NAME}` references. */
export const cursorMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: ['https://cursor.com/docs/context/mcp'],
  home: (env) => path.join(env.home, '.cursor'),
  container: 'mcpServers',
  user: { file: (env) => path.join(env.home, '.cursor', 'mcp.json'), note: 'global servers' },
  project: { file: (_env, project) => path.join(project, '.cursor', 'mcp.json'), note: 'project servers' },
  shape: {
    label: 'Cursor',
    stdio: { type: 'stdio', envKey: 'env', cwdKey: null },
    http: { urlKey: 'url' },
    sse: { urlKey: 'url' },
    ws: NO_WEBSOCKET('Cursor'),
    references: 'env-prefixed',
    defaults: false,
  },
});

/** Windsurf (Cascade): `~/.codeium/windsurf/mcp_config.json`, key `mcpServers`; no project file; `${env:NAME}` references. */
export const windsurfMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: ['https://docs.windsurf.com/windsurf/cascade/mcp'],
  home: (env) => path.join(env.home, '.codeium', 'windsurf'),
  container: 'mcpServers',
  user: { file: (env) => path.join(env.home, '.codeium', 'windsurf', 'mcp_config.json'), note: 'Cascade servers' },
  project: null,
  shape: {
    label: 'Windsurf',
    stdio: { envKey: 'env', cwdKey: null },
    http: { urlKey: 'serverUrl' },
    sse: { urlKey: 'serverUrl' },
    ws: NO_WEBSOCKET('Windsurf'),
    references: 'env-prefixed',
    defaults: false,
  },
});

/** Crush: `~/.config/crush/crush.json` and `<project>/.crush.json`, key `mcp`. */
export const crushMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: ['https://github.com/charmbracelet/crush#mcps', 'https://charm.land/crush.json (the configuration schema)'],
  home: (env) => path.join(xdgConfigHome(env), 'crush'),
  container: 'mcp',
  user: { file: (env) => path.join(xdgConfigHome(env), 'crush', 'crush.json'), note: 'global config' },
  project: {
    file: (_env, project) => path.join(project, '.crush.json'),
    note: 'project config (ranks above crush.json and the global one)',
  },
  shape: {
    label: 'Crush',
    stdio: { type: 'stdio', envKey: 'env', cwdKey: null },
    http: { type: 'http', urlKey: 'url' },
    sse: { type: 'sse', urlKey: 'url' },
    ws: NO_WEBSOCKET('Crush'),
    references: 'dollar-brace',
    defaults: false,
  },
});

/** VS Code's user folder on Linux: `$XDG_CONFIG_HOME/Code/User`. */
function vsCodeUserFolder(env: RuntimeEnvironment): string {
  return path.join(xdgConfigHome(env), 'Code', 'User');
}

/** GitHub Copilot in VS Code: the profile's `mcp.json` and `<project>/.vscode/mcp.json`, key `servers`; `${env:NAME}` references. */
export const copilotVsCodeMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: [
    'https://code.visualstudio.com/docs/copilot/customization/mcp-servers',
    'https://code.visualstudio.com/docs/reference/mcp-configuration',
  ],
  home: vsCodeUserFolder,
  container: 'servers',
  user: { file: (env) => path.join(vsCodeUserFolder(env), 'mcp.json'), note: 'user profile servers' },
  project: { file: (_env, project) => path.join(project, '.vscode', 'mcp.json'), note: 'workspace servers' },
  shape: {
    label: 'VS Code',
    stdio: { type: 'stdio', envKey: 'env', cwdKey: 'cwd' },
    http: { type: 'http', urlKey: 'url' },
    sse: { type: 'sse', urlKey: 'url' },
    ws: NO_WEBSOCKET('VS Code'),
    references: 'env-prefixed',
    defaults: false,
  },
});

/** Auggie's folder: `~/.augment`. */
function augmentHome(env: RuntimeEnvironment): string {
  return path.join(env.home, '.augment');
}

/** Auggie (Augment's CLI): `~/.augment/settings.json` and `<project>/.augment/settings.json`, key `mcpServers`, no references. */
export const auggieMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'auggie mcp list --json',
  verifiedOn: '2026-12-05',
  sources: [
    'https://docs.augmentcode.com/cli/integrations',
    '@augmentcode/auggie 0.36.0: `auggie mcp add` (and `--project`) output and files, `auggie mcp list --json` (offline; it warns that it cannot reach Augment for tenant servers)',
  ],
  home: augmentHome,
  container: 'mcpServers',
  user: { file: (env) => path.join(augmentHome(env), 'settings.json'), note: 'user settings' },
  project: { file: (_env, project) => path.join(project, '.augment', 'settings.json'), note: 'project settings' },
  shape: {
    label: 'Auggie',
    stdio: { type: 'stdio', envKey: 'env', cwdKey: null },
    http: { type: 'http', urlKey: 'url' },
    sse: { type: 'sse', urlKey: 'url' },
    ws: NO_WEBSOCKET('Auggie'),
    // Its bundle replaces only its plugin-root variables: any other `${NAME}` reaches the server as text.
    references: 'none',
    defaults: false,
  },
});

/** Cline's own folder: `$CLINE_DIR` when set, else `~/.cline`. */
export function clineHome(env: RuntimeEnvironment): string {
  return absoluteVariable(env.variables.CLINE_DIR) ?? path.join(env.home, '.cline');
}

/**
 * Cline's MCP settings: `$CLINE_MCP_SETTINGS_PATH` when set, else `settings/cline_mcp_settings.json`
 * in its data folder (`$CLINE_DATA_DIR`, else `data` in its own folder), as its bundle resolves them.
 */
function clineMcpSettings(env: RuntimeEnvironment): string {
  const data = absoluteVariable(env.variables.CLINE_DATA_DIR) ?? path.join(clineHome(env), 'data');
  return absoluteVariable(env.variables.CLINE_MCP_SETTINGS_PATH) ?? path.join(data, 'settings', 'cline_mcp_settings.json');
}

/**
 * Cline: one file for every project, key `mcpServers`, no references. It has no project file: a
 * project's server is not written for it.
 */
export const clineMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'cline config (its settings screen, MCP tab, read in a terminal)',
  verifiedOn: '2026-12-05',
  sources: [
    'https://docs.cline.bot/mcp/configuring-mcp-servers',
    'cline 3.0.65: the settings paths, the entry schema (a URL without `type` is SSE) and the `${PLUGIN_ROOT}` expansion read from its bundle; `cline config` lists the servers in its MCP tab',
  ],
  home: clineHome,
  container: 'mcpServers',
  user: { file: clineMcpSettings, note: 'MCP settings (every project)' },
  project: null,
  shape: {
    label: 'Cline',
    // As its documentation lays a local server out; its reader also takes `type: "stdio"` or a nested `transport`.
    stdio: { envKey: 'env', cwdKey: 'cwd' },
    http: { type: 'streamableHttp', urlKey: 'url' },
    sse: { type: 'sse', urlKey: 'url' },
    ws: NO_WEBSOCKET('Cline'),
    // It replaces only `${PLUGIN_ROOT}` and `${PLUGIN_DATA}` in a plugin's own mcp.json: any other `${NAME}` reaches the server as text.
    references: 'none',
    defaults: false,
  },
});

/** Qoder CLI's own folder: `~/.qoder`. */
export function qoderHome(env: RuntimeEnvironment): string {
  return path.join(env.home, '.qoder');
}

/**
 * Qoder CLI: `~/.qoder/settings.json` and the project's `.qoder/settings.json`, key `mcpServers`,
 * entries laid out as `qodercli mcp add` writes them, `${NAME}` expanded by Qoder itself.
 */
export const qoderMcpSupport: RuntimeMcpSupport = jsonMcpSupport({
  status: 'verified',
  listing: 'qodercli mcp list',
  verifiedOn: '2026-12-05',
  sources: [
    '@qoder-ai/qodercli 1.1.52: the files `qodercli mcp add -s user|project|local` writes, `qodercli mcp list` and `qodercli mcp get NAME` (offline; references shown expanded)',
  ],
  home: qoderHome,
  container: 'mcpServers',
  user: { file: (env) => path.join(qoderHome(env), 'settings.json'), note: 'user settings' },
  // Not `.mcp.json`, which `mcp add -s project` writes: that one is Claude Code's project file, and Qoder ranks it first for a name in both.
  project: { file: (_env, project) => path.join(project, '.qoder', 'settings.json'), note: 'project settings' },
  shape: {
    label: 'Qoder CLI',
    stdio: { envKey: 'env', cwdKey: null },
    http: { type: 'http', urlKey: 'url' },
    sse: { type: 'sse', urlKey: 'url' },
    ws: { type: 'ws', urlKey: 'url' },
    references: 'dollar-brace',
    defaults: false,
  },
});
