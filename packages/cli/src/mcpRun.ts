import { spawn } from 'node:child_process';
import path from 'node:path';
import { readSecretFile, SECRET_NAME, SECRETS_FILE } from '@loadout/servers/secretFile';
import { proofDataDir } from './applyProof.js';
import { REPOSITORY_ROOT } from './cliPaths.js';

/** What `loadout mcp run` was asked to start. */
export interface McpRunRequest {
  /** The server's Loadout id, for messages. */
  readonly name: string;
  /** Variable → secret name. */
  readonly secrets: Readonly<Record<string, string>>;
  readonly cwd: string | null;
  readonly command: string;
  readonly args: readonly string[];
}

/** A request `loadout mcp run` refuses, with the code its one line on stderr carries. */
export class McpRunRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads `run NAME [--secret VAR=SECRET]... [--cwd DIR] -- COMMAND [ARG]...` (the words after
 * `loadout mcp`), as apply writes it into a runtime's entry.
 */
export function parseMcpRun(words: readonly string[]): McpRunRequest {
  const usage = 'usage: loadout mcp run NAME [--secret VAR=SECRET]... [--cwd DIR] -- COMMAND [ARG]...';
  const [run, name, ...rest] = words;
  if (run !== 'run' || name === undefined || name.startsWith('-')) throw new McpRunRefusal('USAGE', usage);
  const secrets: Record<string, string> = {};
  let cwd: string | null = null;
  let index = 0;
  for (; index < rest.length && rest[index] !== '--'; index += 1) {
    const option = rest[index];
    const value = rest[index + 1];
    if (value === undefined) throw new McpRunRefusal('USAGE', usage);
    index += 1;
    if (option === '--cwd') cwd = value;
    else if (option === '--secret') {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(value);
      if (match === null || !SECRET_NAME.test(match[2] as string))
        throw new McpRunRefusal('USAGE', `--secret takes VAR=SECRET, not "${value.slice(0, 64)}"`);
      secrets[match[1] as string] = match[2] as string;
    } else throw new McpRunRefusal('USAGE', usage);
  }
  const [command, ...args] = rest.slice(index + 1);
  if (command === undefined || command === '') throw new McpRunRefusal('USAGE', usage);
  return { name, secrets, cwd, command, args };
}

/**
 * `loadout mcp run`: starts a server a runtime's entry names, with its secrets taken from the
 * store for that process alone. It runs before the command line loads (no session, no database):
 * the entry already says what to start. The server gets this process's standard input and output
 * as they are, so the protocol passes through untouched; its exit (or signal) is this process's.
 */
export function runMcpServer(words: readonly string[]): void {
  let request: McpRunRequest;
  let values: Record<string, string>;
  try {
    request = parseMcpRun(words);
    values = secretValues(request);
  } catch (error) {
    const refusal = error instanceof McpRunRefusal ? error : new McpRunRefusal('INTERNAL', String(error));
    process.stderr.write(`loadout mcp run: ${refusal.message} (${refusal.code})\n`);
    process.exitCode = refusal.code === 'USAGE' ? 2 : 1;
    return;
  }
  const child = spawn(request.command, request.args, {
    stdio: 'inherit',
    env: { ...process.env, ...values },
    ...(request.cwd === null ? {} : { cwd: request.cwd }),
  });
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);
  child.on('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`loadout mcp run: server "${request.name}" did not start: ${error.code ?? error.message} (SERVER_START_FAILED)\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(name, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exitCode = code ?? 1;
  });
}

/** The variables the request names, from the store in the data folder this workspace uses. */
function secretValues(request: McpRunRequest): Record<string, string> {
  if (Object.keys(request.secrets).length === 0) return {};
  const dataDir = proofDataDir(process.env, REPOSITORY_ROOT, process.cwd());
  const content = readSecretFile(path.join(dataDir, SECRETS_FILE));
  if ('problem' in content)
    throw new McpRunRefusal('SECRET_STORE_INVALID', `the secret store (${SECRETS_FILE} in the data folder) ${content.problem}`);
  const values: Record<string, string> = {};
  for (const [variable, secret] of Object.entries(request.secrets)) {
    const value = content.values[secret];
    if (value === undefined)
      throw new McpRunRefusal(
        'SECRET_NOT_FOUND',
        `server "${request.name}" needs the secret "${secret}", which is not kept; \`loadout secrets set ${secret}\` reads it from stdin`,
      );
    values[variable] = value;
  }
  return values;
}
