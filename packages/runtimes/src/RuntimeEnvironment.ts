import os from 'node:os';
import path from 'node:path';
import { token } from '@loadout/kernel';

/**
 * Where the agent runtimes keep their user-level folders on this machine. Read from the
 * environment the way each runtime reads it, so Loadout writes where the runtime looks.
 */
export interface RuntimeEnvironment {
  /** `HOME`: the user's home folder. */
  readonly home: string;
  /** Claude Code's config folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`. It replaces `~/.claude`. */
  readonly claudeConfigDir: string;
  /** Whether `CLAUDE_CONFIG_DIR` was set (diagnostics name it instead of `~/.claude`). */
  readonly claudeConfigDirFromEnv: boolean;
  /** Codex's home: `CODEX_HOME`, else `~/.codex`. */
  readonly codexHome: string;
  readonly codexHomeFromEnv: boolean;
  /** Codex's admin folder (`/etc/codex` on Unix), read for built-in skills, never written. */
  readonly codexSystemDir: string;
}
export const RuntimeEnvironment = token<RuntimeEnvironment>('runtimes.environment');

/**
 * Reads `HOME`, `CLAUDE_CONFIG_DIR` and `CODEX_HOME` (an empty variable counts as unset, as the
 * runtimes themselves treat it). `LOADOUT_CODEX_SYSTEM_DIR` moves Codex's admin folder, for tests.
 */
export function runtimeEnvironmentFrom(env: Readonly<Record<string, string | undefined>>): RuntimeEnvironment {
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw;
  };
  const home = path.resolve(value('HOME') ?? os.homedir());
  const claude = value('CLAUDE_CONFIG_DIR');
  const codex = value('CODEX_HOME');
  return {
    home,
    claudeConfigDir: claude === undefined ? path.join(home, '.claude') : path.resolve(claude),
    claudeConfigDirFromEnv: claude !== undefined,
    codexHome: codex === undefined ? path.join(home, '.codex') : path.resolve(codex),
    codexHomeFromEnv: codex !== undefined,
    codexSystemDir: path.resolve(value('LOADOUT_CODEX_SYSTEM_DIR') ?? '/etc/codex'),
  };
}
