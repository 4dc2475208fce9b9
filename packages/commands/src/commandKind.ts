import {
  type CapabilityKind,
  type EntryScan,
  type KindDocument,
  type KindFolderEntry,
  type RunnableParts,
  readMarkdownCapability,
} from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import type { CommandRecord } from './CommandRecord.js';

/**
 * A command is one Markdown file, `commands/<name>.md`, identified by its file name (runtimes
 * invoke it as `/<name>`, whatever its frontmatter says); a frontmatter `name` only changes how
 * it is shown.
 */
export const COMMAND_DOCUMENT = { idRule: 'entry', nameField: 'frontmatter' } as const satisfies KindDocument;

/** A command's id is its file stem: a name every runtime can type after `/` and keep as a file name. */
export const COMMAND_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The command kind: slash commands and custom prompts read from `commands/`. Text, unless its
 * frontmatter grants tools (`allowed-tools`): then it is held like a skill with a grant.
 */
export const commandKind: CapabilityKind<CommandRecord> = {
  kind: 'command',
  folder: 'commands',
  sessionKey: 'commands',
  document: COMMAND_DOCUMENT,
  readEntry: readCommandEntry,
  runnable: commandRunnableParts,
  mayRun: (record) => record.toolGrants.length > 0,
};

/**
 * What a command runs: nothing of its own, but the tools its `allowed-tools` grants are used
 * without asking while it runs (Claude Code runs its `!` shell lines under that grant). The grant
 * is the definition approval fingerprints; the prompt is text, and changing it holds nothing.
 */
export function commandRunnableParts(record: CommandRecord): RunnableParts | null {
  if (record.toolGrants.length === 0) return null;
  return {
    files: [],
    sources: [record.path],
    definition: { toolGrants: record.toolGrants },
    summary: `grants tools ${record.toolGrants.join(', ')}`,
  };
}

/** `allowed-tools` as written: one text (`Bash(git add:*), Read`) or a YAML list, each item kept whole. */
export function commandToolGrants(value: unknown): readonly string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
}

/**
 * Reads one `commands/<name>.md`. A folder of commands (`commands/frontend/x.md`, a namespace
 * some runtimes give as `frontend:x`) is named in a diagnostic rather than read, so it is never
 * dropped in silence.
 */
export function readCommandEntry(entry: KindFolderEntry): EntryScan<CommandRecord> {
  if (entry.isDirectory) {
    return {
      records: [],
      diagnostics: [
        {
          code: 'COMMAND_FOLDER_NOT_READ',
          severity: 'info',
          path: entry.path,
          message: `${entry.name}/ in ${entry.folder}: commands in a folder of their own are not read; put them directly in the commands folder`,
        },
      ],
    };
  }
  if (!entry.name.toLowerCase().endsWith('.md')) return { records: [], diagnostics: [] };
  const stem = entry.name.slice(0, -'.md'.length);
  if (!COMMAND_ID.test(stem)) {
    throw new DocumentRefusedError(
      'COMMAND_NAME_INVALID',
      `${entry.name}: a command's file name must be 1-64 letters, digits, ".", "_" or "-" before .md`,
    );
  }
  const read = readMarkdownCapability(entry.root.dir, entry.path, COMMAND_DOCUMENT);
  if (read === null) return { records: [], diagnostics: [] };
  const { frontmatter } = read.document;
  const record: Omit<CommandRecord, 'kind' | 'level' | 'plugin'> = {
    ...read.draft,
    argumentHint: textField(frontmatter['argument-hint']),
    model: textField(frontmatter.model),
    toolGrants: commandToolGrants(frontmatter['allowed-tools']),
  };
  return { records: [record], diagnostics: [] };
}

function textField(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  // `argument-hint: [pr-number]` is a YAML list when unquoted; it is meant as the text written.
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return `[${value.join(', ')}]`;
  return null;
}
