import path from 'node:path';
import { findRepositoryRoot } from '../findRepositoryRoot.js';
import type { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import { runtimeFolderIn } from '../RuntimeEnvironment.js';
import type { McpConfigFile, RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import type { RuntimeServerEntry, ServerSpec } from './ServerSpec.js';
import { trackedFs } from '@loadout/files';

/**
 * Claude Code's global configuration file, found as Claude Code 2.1.197 finds it:
 * `<config folder>/.config.json` when that legacy file exists, else `.claude.json` in
 * `$CLAUDE_CONFIG_DIR` (when set and not empty), else in the home folder. Null when
 * `CLAUDE_CONFIG_DIR` is relative and there is no project to resolve it against.
 */
export function claudeGlobalConfigFile(project: string | null, env: RuntimeEnvironment): { file: string; relative: boolean } | null {
  const configFolder = runtimeFolderIn(env.claudeConfig, project);
  if (configFolder !== null && trackedFs.existsSync(path.join(configFolder, '.config.json'))) {
    return { file: path.join(configFolder, '.config.json'), relative: env.claudeConfig.relative };
  }
  const raw = env.variables.CLAUDE_CONFIG_DIR;
  if (raw === undefined || raw === '') return { file: path.join(env.home, '.claude.json'), relative: false };
  if (path.isAbsolute(raw)) return { file: path.join(path.resolve(raw), '.claude.json'), relative: false };
  return project === null ? null : { file: path.join(path.resolve(project, raw), '.claude.json'), relative: true };
}

/**
 * The key of a project's settings in Claude Code's global file: the real path of the repository
 * the project is in (its root, where Claude Code started in any folder of it looks), else of the
 * project's own folder.
 */
export function claudeProjectKey(project: string): string {
  const folder = findRepositoryRoot(project) ?? path.resolve(project);
  try {
    return trackedFs.realpathSync(folder);
  } catch {
    return folder;
  }
}

/**
 * How Claude Code keeps MCP servers: user scope under the top-level `mcpServers` of its global
 * configuration, project scope in `<project>/.mcp.json` (`{"mcpServers":{…}}`), entries shaped as
 * `claude mcp add` writes them. It expands `${VAR}` in both files, so values are written as they
 * are. It has no working-folder setting for a stdio server: it starts one in its own working folder.
 */
export const claudeMcpSupport: RuntimeMcpSupport = {
  status: 'verified',
  listing: 'claude mcp list',
  verifiedOn: '2026-12-03',
  sources: [
    'https://code.claude.com/docs/en/mcp',
    '@anthropic-ai/claude-code 2.1.197: `claude mcp add -s user|project` output, `claude mcp get`, config schema and lock read from the binary',
  ],
  files(project, env) {
    const files: McpConfigFile[] = [];
    const global = claudeGlobalConfigFile(project, env);
    if (global !== null) {
      files.push({
        file: global.file,
        scope: 'user',
        format: 'json',
        container: 'mcpServers',
        writes: !global.relative,
        note: global.relative
          ? 'user scope, relative to the working folder (CLAUDE_CONFIG_DIR is relative): read, never written'
          : 'user scope (top-level mcpServers)',
        sharedLock: true,
        createMode: 0o600,
      });
    }
    if (project !== null && global !== null) {
      // The project's own settings in the global file, kept under the repository's root (Claude
      // Code started in a subfolder reads the root's): a name in `disabledMcpServers` is shown
      // "Disabled for this project" by `claude mcp list` and not started there (2.1.197, 2.1.332).
      files.push({
        file: global.file,
        scope: 'user',
        format: 'json',
        container: 'disabledMcpServers',
        offList: ['projects', claudeProjectKey(project), 'disabledMcpServers'],
        writes: !global.relative,
        note: "the project's entry in the global configuration: servers left off in this project",
        sharedLock: true,
        createMode: 0o600,
      });
    }
    if (project !== null) {
      files.push({
        file: path.join(project, '.mcp.json'),
        scope: 'project',
        format: 'json',
        container: 'mcpServers',
        writes: true,
        note: 'project scope',
        sharedLock: false,
        createMode: 0o644,
      });
    }
    return files;
  },
  projectOff: { kind: 'list' },
  entryFor(spec: ServerSpec): RuntimeServerEntry {
    if (spec.transport === 'stdio') {
      const notes =
        spec.cwd === undefined
          ? []
          : ['Claude Code has no working-folder setting for a stdio server; it starts it in the folder Claude Code works in'];
      return { value: { type: 'stdio', command: spec.command, args: [...spec.args], env: { ...spec.env } }, notes };
    }
    const headers = Object.keys(spec.headers).length === 0 ? {} : { headers: { ...spec.headers } };
    return { value: { type: spec.transport, url: spec.url, ...headers }, notes: [] };
  },
  projectFindings(file, names) {
    return [
      {
        code: 'CLAUDE_PROJECT_SERVERS_NEED_APPROVAL',
        severity: 'info',
        path: file,
        message: `claude-code: servers in ${file} (${names.join(', ')}) wait for approval: Claude Code asks before starting a project's servers (run claude in the project, or approve them in its settings); Loadout never approves them for you`,
      },
    ];
  },
};
