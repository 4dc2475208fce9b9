import { token } from '@loadout/kernel';
import type { ServerSpec } from './ServerSpec.js';
import type { SourceServer } from './SourceServer.js';

/**
 * How a runtime starts Loadout's own command line: `loadout` on PATH, or node and the CLI's
 * `main.js`, with the workspace variables the command was given. Registered by the command line
 * (the process that knows where it is); without it, a server whose secrets come from the store
 * cannot be written, and is held back.
 */
export interface LoadoutLauncher {
  readonly command: string;
  /** The words before Loadout's own (`[]` for `loadout`, `[main.js]` for node). */
  readonly args: readonly string[];
  /** The workspace variables, so the command finds the same data folder. */
  readonly env: Readonly<Record<string, string>>;
}
export const LoadoutLauncher = token<LoadoutLauncher>('runtimes.loadoutLauncher');

/**
 * A server that names secrets as a runtime is given it: started through `loadout mcp run ID
 * --secret VAR=SECRET… [--cwd DIR] -- COMMAND ARGS…`, which puts the values into the server's
 * process alone. The entry holds the secrets' names, never their values; the server's other
 * variables stay in the entry as they were (a secret's variable is dropped from them).
 */
export function startedThroughLoadout(
  server: SourceServer,
  secrets: Readonly<Record<string, string>>,
  launcher: LoadoutLauncher,
): SourceServer {
  const spec = server.spec;
  if (spec.transport !== 'stdio') return server;
  const env = Object.fromEntries(Object.entries(spec.env).filter(([name]) => !Object.hasOwn(secrets, name)));
  const launched: ServerSpec = {
    transport: 'stdio',
    command: launcher.command,
    args: [
      ...launcher.args,
      'mcp',
      'run',
      server.id,
      ...Object.entries(secrets).flatMap(([variable, secret]) => ['--secret', `${variable}=${secret}`]),
      ...(spec.cwd === undefined ? [] : ['--cwd', spec.cwd]),
      '--',
      spec.command,
      ...spec.args,
    ],
    env: { ...env, ...launcher.env },
    ...(spec.tools === undefined ? {} : { tools: spec.tools }),
  };
  return { ...server, spec: launched };
}
