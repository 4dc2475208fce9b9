import path from 'node:path';
import type { RuntimeDocumentSupport } from '../documents/RuntimeDocumentSupport.js';
import { claudeCodeDocument } from '../documents/translate.js';
import type { WriteTarget } from '../RuntimeAdapter.js';
import { type RuntimeEnvironment, runtimeFolderIn } from '../RuntimeEnvironment.js';

/**
 * The hook events Claude Code 2.1.197 reads (its own list, read from the client), each its own name:
 * Loadout's hooks files are written in Claude Code's shape.
 */
export const CLAUDE_CODE_HOOK_EVENTS: readonly string[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
  'MessageDisplay',
];

/** A folder of Claude Code's configuration (`$CLAUDE_CONFIG_DIR`, default `~/.claude`) and of the project. */
function claudeFolders(name: string): (project: string | null, env: RuntimeEnvironment) => Record<WriteTarget, string | null> {
  return (project, env) => {
    const config = env.claudeConfig.relative ? null : runtimeFolderIn(env.claudeConfig, project);
    return {
      user: config === null ? null : path.join(config, name),
      project: project === null ? null : path.join(project, '.claude', name),
    };
  };
}

/**
 * Claude Code's subagents (`agents/*.md`), slash commands (`commands/*.md`, a folder giving a
 * `folder:name` prefix) and hooks (`hooks` in `settings.json`), personal and per project.
 * Checked 2026-12-05 against its documentation and the real client 2.1.197, offline: the
 * `initialize` answer lists `commands/<plugin>/<name>.md` as `<plugin>:<name>` and an agent by its
 * frontmatter name, as it lists a plugin it installed itself; a `SessionStart` hook in
 * `settings.json` runs at the start of `claude -p`.
 */
export const claudeCodeDocuments: RuntimeDocumentSupport = {
  verifiedOn: '2026-12-05',
  agent: {
    folders: claudeFolders('agents'),
    translate: (document) => claudeCodeDocument('agent', document),
    source: 'https://code.claude.com/docs/en/sub-agents (read 2026-12-05); @anthropic-ai/claude-code 2.1.197 initialize answer',
  },
  command: {
    folders: claudeFolders('commands'),
    translate: (document) => claudeCodeDocument('command', document),
    source: 'https://code.claude.com/docs/en/slash-commands (read 2026-12-05); @anthropic-ai/claude-code 2.1.197 initialize answer',
  },
  hook: {
    files: claudeFolders('settings.json'),
    events: Object.fromEntries(CLAUDE_CODE_HOOK_EVENTS.map((event) => [event, event])),
    pluginRootNames: ['CLAUDE_PLUGIN_ROOT', 'PLUGIN_ROOT'],
    regexMatchers: true,
    source:
      'https://code.claude.com/docs/en/hooks (read 2026-12-05); @anthropic-ai/claude-code 2.1.197 runs a settings.json SessionStart hook',
  },
};
