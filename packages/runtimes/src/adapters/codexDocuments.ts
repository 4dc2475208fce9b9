import path from 'node:path';
import type { RuntimeDocumentSupport } from '../documents/RuntimeDocumentSupport.js';
import { runtimeFolderIn } from '../RuntimeEnvironment.js';

/**
 * The hook events Codex 0.171.0 lists (`hooks/list` of its app server, asked offline with a hooks
 * file naming every candidate) under the same names Claude Code uses. Claude Code's other events
 * (`Notification`, `PostToolUseFailure` …) it passes over without a word: their hooks are skipped.
 */
export const CODEX_HOOK_EVENTS: readonly string[] = [
  'PreModelRequest',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'Interrupt',
];

/**
 * Codex 0.171.0 reads hooks from `$CODEX_HOME/hooks.json` (`{ "hooks": { "<Event>": [group] } }`,
 * Claude Code's shape; its app server's `hooks/list` reports each with its source file) and, for a
 * project, from `<project>/.codex/hooks.json`. It no longer reads custom prompts
 * (`$CODEX_HOME/prompts/*.md`): nothing in 0.171.0 loads that folder, skills replaced them. Its
 * subagents are configured in `config.toml` in a shape not yet checked.
 * Checked 2026-12-05 with the real client offline (packages/e2e/test/runtimes/documentsApply.test.ts).
 */
export const codexDocuments: RuntimeDocumentSupport = {
  verifiedOn: '2026-12-05',
  agent: 'where Codex 0.171.0 reads subagent definitions is not confirmed; Loadout writes none',
  command: 'Codex 0.171.0 reads no custom prompts (its $CODEX_HOME/prompts folder is no longer loaded; skills replaced them)',
  hook: {
    files: (project, env) => {
      const home = env.codexHome.relative ? null : runtimeFolderIn(env.codexHome, project);
      return {
        user: home === null ? null : path.join(home, 'hooks.json'),
        project: project === null ? null : path.join(project, '.codex', 'hooks.json'),
      };
    },
    events: Object.fromEntries(CODEX_HOOK_EVENTS.map((event) => [event, event])),
    pluginRootNames: ['CLAUDE_PLUGIN_ROOT', 'PLUGIN_ROOT'],
    source: '@openai/codex 0.171.0 app-server hooks/list, asked offline 2026-12-05',
  },
};
