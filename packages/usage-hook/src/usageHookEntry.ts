import { fileURLToPath } from 'node:url';
import { UsageHookConsent } from './UsageHookConsent.js';
import { trackedFs } from '@loadout/files';

/** The hook program, beside this module's folder in source and when built alike; real path, so a link's move does not break it. */
export function usageHookProgram(): string {
  const file = fileURLToPath(new URL('../usage-hook.mjs', import.meta.url));
  try {
    return trackedFs.realpathSync(file);
  } catch {
    return file;
  }
}

/** The id the usage hook's entries are recorded under in the document manifest: not a capability id (those have no colon). */
export const USAGE_HOOK_ID = 'loadout:usage';

/**
 * The events the hook is written for, by Claude Code's names (a runtime without one is given the
 * others): a tool finished or failed, and a prompt submitted (a typed `/command`). PreToolUse is
 * left out so a call is counted once; the hook program maps it all the same.
 */
export const USAGE_HOOK_EVENTS: readonly { readonly event: string; readonly matcher: string | null }[] = [
  // Only the tools that stand for a skill, an agent, a command or an MCP tool start the hook at all.
  { event: 'PostToolUse', matcher: '^(Skill|Task|Agent|SlashCommand|mcp__.+)$' },
  { event: 'PostToolUseFailure', matcher: '^(Skill|Task|Agent|SlashCommand|mcp__.+)$' },
  { event: 'UserPromptSubmit', matcher: null },
];

/** A word as one POSIX shell word: runtimes run a command hook through `sh -c`. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line a runtime runs: this node, the hook program, the usage folder and the runtime's
 * name. Absolute paths throughout: a runtime's PATH is not Loadout's.
 */
export function usageHookCommand(runtime: string, dataDir: string, node: string = process.execPath): string {
  return [node, usageHookProgram(), UsageHookConsent.usageDir(dataDir), runtime].map(shellWord).join(' ');
}
