import path from 'node:path';
import { expandPlaceholders, redactSecrets, type Root, type RunnableParts } from '@loadout/kernel';
import { isInside, isRegularFile, pathAndRealPath } from '@loadout/files';
import { hookHandlerOf, type HookRecord } from './HookRecord.js';

/** The names a plugin's hook may call its own root by in its command line. */
const ROOT_NAMES = ['CLAUDE_PLUGIN_ROOT', 'PLUGIN_ROOT', 'CURSOR_PLUGIN_ROOT'] as const;

/** What separates words of a shell command line, besides white space: operators and redirections. */
const SHELL_SEPARATORS = /[\s;|&()<>]+/;

/**
 * What a hook runs: its event, matcher and handler as written (the command line is the
 * definition), and every file of its root the command line names — through `${CLAUDE_PLUGIN_ROOT}`
 * (or `$CLAUDE_PLUGIN_ROOT`, `${PLUGIN_ROOT}`), as an absolute path inside the root, or, in a
 * plugin, as `./…` from the plugin's folder. Trust follows what those scripts load from there, so a
 * changed script or a changed command line holds the hook again.
 */
export function hookRunnableParts(record: HookRecord, root: Root): RunnableParts {
  const handler = hookHandlerOf(record);
  const written = handler?.command ?? handler?.prompt ?? '';
  const files = handler?.command === undefined ? [] : filesNamed(handler.command, root);
  return {
    files,
    sources: [record.path, ...files],
    definition: { event: record.event, matcher: record.matcher, handler: handler ?? null },
    summary: `${record.event}${record.matcher === null ? '' : ` [${record.matcher}]`}: ${
      record.type === 'command' ? redactSecrets(written) : `${record.type} ${redactSecrets(written)}`
    }`,
  };
}

/** The regular files of the root a command line names, in the order it names them. */
export function filesNamed(command: string, root: Root): string[] {
  const roots = pathAndRealPath(root.dir);
  const placeholders = Object.fromEntries(ROOT_NAMES.map((name) => [name, root.dir]));
  const files: string[] = [];
  for (const word of command.split(SHELL_SEPARATORS)) {
    const unquoted = word.replace(/["']/g, '');
    const expanded = expandPlaceholders(
      unquoted.replace(/\$([A-Z_]+)/g, (match, name: string) => (name in placeholders ? `\${${name}}` : match)),
      placeholders,
    );
    if (expanded === '' || expanded.startsWith('-')) continue;
    // A relative path means the plugin's folder only in a plugin: an owner's hook runs in the project.
    const file = path.isAbsolute(expanded)
      ? path.normalize(expanded)
      : root.plugin !== null && (expanded.startsWith('./') || expanded.startsWith('../'))
        ? path.resolve(root.dir, expanded)
        : null;
    if (file !== null && roots.some((dir) => isInside(dir, file)) && isRegularFile(file) && !files.includes(file)) files.push(file);
  }
  return files;
}
