import path from 'node:path';
import type { RuntimeDocumentSupport } from '../documents/RuntimeDocumentSupport.js';
import { geminiCliCommand } from '../documents/translate.js';
import { geminiHome } from '../mcp/runtimeMcpSupports.js';

/**
 * Gemini CLI's custom commands: TOML files (`prompt`, optional `description`) in
 * `~/.gemini/commands/` and `<project>/.gemini/commands/`, a folder giving a `folder:name` prefix,
 * `{{args}}` standing for what was typed after the name. A Claude Code Markdown command becomes one
 * through `geminiCliCommand` (the translation's data is there); what has no equivalent is skipped
 * with the reason. Where it reads subagents and hooks is not confirmed. Source:
 * https://geminicli.com/docs/cli/custom-commands/ (read 2026-12-05). `$GEMINI_CLI_HOME` replaces the
 * home folder, as for its settings and skills.
 */
export const geminiCliDocuments: RuntimeDocumentSupport = {
  verifiedOn: '2026-12-05',
  agent: 'where Gemini CLI reads subagent definitions is not confirmed; Loadout writes none',
  command: {
    folders: (project, env) => ({
      user: path.join(geminiHome(env), '.gemini', 'commands'),
      project: project === null ? null : path.join(project, '.gemini', 'commands'),
    }),
    translate: geminiCliCommand,
    source: 'https://geminicli.com/docs/cli/custom-commands/ (read 2026-12-05)',
  },
  hook: 'where Gemini CLI reads hooks, and under which event names, is not confirmed; Loadout writes none',
};
