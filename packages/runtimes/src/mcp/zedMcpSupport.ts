import path from 'node:path';
import { type RuntimeEnvironment, xdgConfigHome } from '../RuntimeEnvironment.js';
import { type EntryShape, shapedEntry } from './EntryShape.js';
import { jsonMcpSupport } from './jsonMcpSupport.js';
import type { RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import { hasReference, type RuntimeServerEntry, type ServerSpec } from './ServerSpec.js';

/** Zed's config folder on Linux and macOS: `$XDG_CONFIG_HOME/zed`, default `~/.config/zed`. */
export function zedConfigDir(env: RuntimeEnvironment): string {
  return path.join(xdgConfigHome(env), 'zed');
}

/** Zed's entries: `url` for a remote server, no working folder, no SSE or WebSocket. */
const ZED_SHAPE: EntryShape = {
  label: 'Zed',
  stdio: { envKey: 'env', cwdKey: null },
  http: { urlKey: 'url' },
  sse: "Loadout writes Zed's `url` servers for Streamable HTTP only: Zed's docs do not say how one picks HTTP+SSE",
  ws: 'Zed has no WebSocket transport',
  references: 'dollar-brace',
  defaults: false,
};

/**
 * How Zed keeps MCP servers ("context servers"): `context_servers` in its user `settings.json`
 * and in a project's `.zed/settings.json`, both JSONC (comments and trailing commas), edited in
 * place like every JSON file. A stdio entry is `command`, `args`, `env` with `source: "custom"`:
 * Zed releases before remote servers required that tag, later ones ignore it, so both read it. A
 * remote entry is `url` with `headers` (Streamable HTTP). Zed expands no `${VAR}` in settings, so a
 * server holding a reference cannot be written for it (a secret goes through `loadout mcp run`).
 * Zed ships no npm CLI to ask, so these facts are `documented`.
 */
const zedJsonSupport = jsonMcpSupport({
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: [
    'https://zed.dev/docs/ai/mcp (As Custom Servers: source "custom", command, args, env)',
    'https://github.com/zed-industries/zed crates/settings (ContextServerSettingsContent: a stdio entry, an `url` entry with headers; read 2026-12-05)',
    'https://zed.dev/docs/configuring-zed (settings.json in ~/.config/zed, project settings in .zed/settings.json)',
  ],
  home: zedConfigDir,
  container: 'context_servers',
  trailingCommas: true,
  user: { file: (env) => path.join(zedConfigDir(env), 'settings.json'), note: 'user settings' },
  project: { file: (_env, project) => path.join(project, '.zed', 'settings.json'), note: 'project settings (trusted worktrees only)' },
  shape: ZED_SHAPE,
  projectFindings: (file, names) => [
    {
      code: 'ZED_PROJECT_SERVERS_NEED_TRUST',
      severity: 'info',
      path: file,
      message: `zed: Zed starts the servers in ${file} (${names.join(', ')}) only once the project's worktree is trusted in Zed; Loadout never trusts it for you`,
    },
  ],
});

/** The entry Zed holds for a server: refused while it holds a reference Zed would pass on as text. */
function zedEntry(spec: ServerSpec): RuntimeServerEntry {
  const texts =
    spec.transport === 'stdio' ? [spec.command, ...spec.args, ...Object.values(spec.env)] : [spec.url, ...Object.values(spec.headers)];
  if (texts.some(hasReference)) return { unsupported: 'Zed does not expand ${VAR} in its settings; write the value, or name a secret' };
  const entry = shapedEntry(ZED_SHAPE, spec);
  if ('unsupported' in entry || spec.transport !== 'stdio') return entry;
  return { value: { source: 'custom', ...entry.value }, notes: entry.notes };
}

/** Zed: `~/.config/zed/settings.json` and `<project>/.zed/settings.json`, key `context_servers`. */
export const zedMcpSupport: RuntimeMcpSupport = { ...zedJsonSupport, entryFor: zedEntry };
