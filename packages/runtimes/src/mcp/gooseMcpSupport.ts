import path from 'node:path';
import { absoluteVariable, type RuntimeEnvironment, xdgConfigHome } from '../RuntimeEnvironment.js';
import type { RuntimeMcpSupport } from './RuntimeMcpSupport.js';
import { hasReference, notPassedThrough, passThroughEnv, type RuntimeServerEntry, type ServerSpec } from './ServerSpec.js';
import { trackedFs } from '@loadout/files';

/** The timeout (seconds) Goose gives an extension it adds itself. */
const GOOSE_DEFAULT_TIMEOUT = 300;

/** Goose's config folder: `$GOOSE_PATH_ROOT/config` when set, else `$XDG_CONFIG_HOME/goose` (default `~/.config/goose`). */
export function gooseConfigDir(env: RuntimeEnvironment): string {
  const pathRoot = absoluteVariable(env.variables.GOOSE_PATH_ROOT);
  return pathRoot !== null ? path.join(pathRoot, 'config') : path.join(xdgConfigHome(env), 'goose');
}

/**
 * How Goose keeps MCP servers: entries ("extensions") under `extensions` in its one YAML file,
 * `config.yaml` in its config folder; it has no project file. Each entry is a map naming itself
 * again (`name`), with `enabled`, `type` (`stdio` with `cmd`, `args`, `envs`; `streamable_http`
 * with `uri`, `headers`) and `timeout`, as Goose's own `goose configure` writes it. Goose does not
 * expand `${VAR}` in the file; it passes a variable through by name (`env_keys`, read from its
 * environment or its secret store), so an env value that is exactly `${ITS_OWN_NAME}` becomes an
 * `env_keys` name and any other reference cannot be written for Goose. No SSE (Goose dropped it),
 * no WebSocket. Goose ships as a Rust binary, not on npm, so these facts are `documented`.
 */
export const gooseMcpSupport: RuntimeMcpSupport = {
  status: 'documented',
  verifiedOn: '2026-12-05',
  sources: [
    'https://block.github.io/goose/docs/guides/config-files (Extensions Configuration)',
    'https://github.com/aaif-goose/goose/blob/main/documentation/docs/guides/config-files.md',
    'https://block.github.io/goose/docs/getting-started/using-extensions',
  ],
  files(_project, env) {
    const home = gooseConfigDir(env);
    const present = trackedFs.existsSync(home);
    return [
      {
        file: path.join(home, 'config.yaml'),
        scope: 'user',
        format: 'yaml',
        container: 'extensions',
        writes: present,
        note: present ? 'extensions' : "extensions; Goose's own folder does not exist (it is not set up here): read, never written",
        sharedLock: false,
        createMode: 0o600,
      },
    ];
  },
  entryFor: gooseEntry,
};

/** The entry Goose holds for a server, or why it cannot hold it. */
export function gooseEntry(spec: ServerSpec, name?: string): RuntimeServerEntry {
  if (name === undefined) return { unsupported: 'Goose repeats the entry name inside the entry, and none was given' };
  if (spec.transport !== 'stdio') {
    if (spec.transport === 'sse') return { unsupported: 'Goose no longer speaks HTTP+SSE (move the server to Streamable HTTP)' };
    if (spec.transport === 'ws') return { unsupported: 'Goose has no WebSocket transport' };
    if (hasReference(spec.url)) return { unsupported: 'Goose does not expand ${VAR} in a URL' };
    if (Object.values(spec.headers).some(hasReference)) return { unsupported: 'Goose does not expand ${VAR} in a header' };
    return {
      value: {
        enabled: true,
        type: 'streamable_http',
        name,
        description: '',
        uri: spec.url,
        headers: { ...spec.headers },
        envs: {},
        env_keys: [],
        timeout: GOOSE_DEFAULT_TIMEOUT,
      },
      notes: [],
    };
  }
  if (hasReference(spec.command) || spec.args.some(hasReference)) {
    return { unsupported: 'Goose does not expand ${VAR} in a command or its arguments' };
  }
  const split = passThroughEnv(spec.env);
  if ('refused' in split) return notPassedThrough('Goose', split.refused);
  const notes =
    spec.cwd === undefined ? [] : ['Goose has no working-folder setting for an extension; it starts it in the folder Goose works in'];
  return {
    value: {
      enabled: true,
      type: 'stdio',
      name,
      description: '',
      cmd: spec.command,
      args: [...spec.args],
      envs: split.literal,
      env_keys: split.passed,
      timeout: GOOSE_DEFAULT_TIMEOUT,
    },
    notes,
  };
}
