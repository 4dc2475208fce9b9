import os from 'node:os';
import path from 'node:path';
import { type Diagnostic, token } from '@loadout/kernel';
import { trackedFs } from '@loadout/files';

/**
 * A folder a runtime takes from a variable: absolute, or relative to the folder the runtime is
 * started in (an empty `CLAUDE_CONFIG_DIR` is the relative path `""`, so Claude Code reads
 * `skills/` in its working folder).
 */
export interface RuntimeFolder {
  /** Absolute when `relative` is false; otherwise the relative value as the variable holds it. */
  readonly dir: string;
  readonly relative: boolean;
  /** Whether a variable set it (diagnostics then name the variable instead of `~/...`). */
  readonly fromEnv: boolean;
}

/**
 * Where the agent runtimes keep their folders on this machine, read from the environment exactly
 * the way each runtime reads it (measured with the real clients, see docs/runtimes.md), so
 * Loadout plans where the runtime looks.
 */
export interface RuntimeEnvironment {
  /** `HOME`: the user's home folder. */
  readonly home: string;
  /**
   * Claude Code's config folder: `CLAUDE_CONFIG_DIR` when it is set, even to an empty or relative
   * value (Claude Code then resolves it against its working folder), else `~/.claude`.
   */
  readonly claudeConfig: RuntimeFolder;
  /** The folder Claude Code reads managed (enterprise) settings and skills from. */
  readonly claudeManagedDir: string;
  /** Codex's home: `CODEX_HOME` when set and not empty (relative to the working folder when relative), else `~/.codex`. */
  readonly codexHome: RuntimeFolder;
  /** Codex's admin folder (`/etc/codex` on Unix), read for admin skills, never written. */
  readonly codexSystemDir: string;
  /** Every variable as given, for adapters that read their own (`XDG_CONFIG_HOME`, `COPILOT_HOME`, ...). */
  readonly variables: Readonly<Record<string, string | undefined>>;
}
export const RuntimeEnvironment = token<RuntimeEnvironment>('runtimes.environment');

/** Where Claude Code keeps managed settings on each platform. */
function claudeManagedDefault(): string {
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  if (process.platform === 'win32') return 'C:\\Program Files\\ClaudeCode';
  return '/etc/claude-code';
}

/**
 * Reads `HOME`, `CLAUDE_CONFIG_DIR` and `CODEX_HOME` as the runtimes do: Claude Code takes
 * `CLAUDE_CONFIG_DIR` whenever it is set (an empty value is a relative path), Codex ignores an
 * empty `CODEX_HOME`. `LOADOUT_CODEX_SYSTEM_DIR` and `LOADOUT_CLAUDE_MANAGED_DIR` move the
 * machine-wide folders, for tests.
 */
export function runtimeEnvironmentFrom(env: Readonly<Record<string, string | undefined>>): RuntimeEnvironment {
  const nonEmpty = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw === '' ? undefined : raw;
  };
  const home = path.resolve(nonEmpty('HOME') ?? os.homedir());
  return {
    home,
    claudeConfig: folderFrom(env.CLAUDE_CONFIG_DIR, path.join(home, '.claude')),
    claudeManagedDir: path.resolve(nonEmpty('LOADOUT_CLAUDE_MANAGED_DIR') ?? claudeManagedDefault()),
    codexHome: folderFrom(nonEmpty('CODEX_HOME'), path.join(home, '.codex')),
    codexSystemDir: path.resolve(nonEmpty('LOADOUT_CODEX_SYSTEM_DIR') ?? '/etc/codex'),
    variables: { ...env },
  };
}

function folderFrom(value: string | undefined, fallback: string): RuntimeFolder {
  if (value === undefined) return { dir: fallback, relative: false, fromEnv: false };
  if (path.isAbsolute(value)) return { dir: path.resolve(value), relative: false, fromEnv: true };
  return { dir: value, relative: true, fromEnv: true };
}

/**
 * The absolute folder a runtime started in `project` uses; null when the folder is relative to the
 * working folder and there is no project to resolve it against.
 */
export function runtimeFolderIn(folder: RuntimeFolder, project: string | null): string | null {
  if (!folder.relative) return folder.dir;
  return project === null ? null : path.resolve(project, folder.dir);
}

/** The folder as a one-element list when it is absolute, else none (a relative one names no fixed place). */
export function absoluteFolder(folder: RuntimeFolder): string[] {
  return folder.relative ? [] : [folder.dir];
}

/** Settings that make a runtime read its folders from wherever it is started: worth a warning. */
export function environmentFindings(env: RuntimeEnvironment): Diagnostic[] {
  const findings: Diagnostic[] = [];
  if (env.claudeConfig.relative) {
    const shown = env.claudeConfig.dir === '' ? 'set but empty' : `relative ("${env.claudeConfig.dir.slice(0, 64)}")`;
    findings.push({
      code: 'RUNTIME_FOLDER_RELATIVE',
      severity: 'warning',
      message: `CLAUDE_CONFIG_DIR is ${shown}: Claude Code then reads personal skills from ${env.claudeConfig.dir === '' ? 'skills/' : `${env.claudeConfig.dir}/skills/`} relative to the folder it starts in, so Loadout writes no personal skills for it; unset CLAUDE_CONFIG_DIR or give it an absolute folder`,
    });
  }
  if (env.codexHome.relative) {
    findings.push({
      code: 'RUNTIME_FOLDER_RELATIVE',
      severity: 'warning',
      message: `CODEX_HOME is relative ("${env.codexHome.dir.slice(0, 64)}"): Codex resolves it against the folder it starts in`,
    });
  }
  if (env.codexHome.fromEnv && !env.codexHome.relative && !trackedFs.existsSync(env.codexHome.dir)) {
    findings.push({
      code: 'RUNTIME_FOLDER_MISSING',
      severity: 'warning',
      message: 'CODEX_HOME names a folder that does not exist: Codex refuses to start until it does',
    });
  }
  return findings;
}

/** An absolute folder from a variable; null when unset, empty or relative. */
export function absoluteVariable(value: string | undefined): string | null {
  return value !== undefined && value !== '' && path.isAbsolute(value) ? path.resolve(value) : null;
}

/** `$XDG_CONFIG_HOME` when it is an absolute folder, else `~/.config` (the XDG rule). */
export function xdgConfigHome(env: RuntimeEnvironment): string {
  return absoluteVariable(env.variables.XDG_CONFIG_HOME) ?? path.join(env.home, '.config');
}
