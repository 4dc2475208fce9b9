import fs from 'node:fs';
import path from 'node:path';
import { expandPlaceholders, isInside, redactArguments, redactCredentials, redactSecrets, type Root, type RunnableParts } from '@loadout/kernel';
import { serverDefinitionOf, type ServerRecord } from './ServerDefinition.js';

/** The names a plugin's server may call its own root by in its command line. */
const ROOT_NAMES = ['PLUGIN_ROOT', 'CLAUDE_PLUGIN_ROOT'] as const;

/**
 * What a server runs: its definition without the text fields (command, arguments, environment,
 * working folder, or URL and headers), and every file of its root its command line names through
 * `${PLUGIN_ROOT}` (a plugin's server script), so a change to that script is a change to what runs.
 */
export function serverRunnableParts(record: ServerRecord, root: Root): RunnableParts {
  const definition = serverDefinitionOf(record);
  if (definition === null) return { files: [], sources: [record.path], definition: null, summary: '(no definition)' };
  const { name: _name, description: _description, gates: _gates, ...runs } = definition;
  const files: string[] = [];
  if ('command' in definition) {
    for (const part of [definition.command, ...definition.args, definition.cwd ?? '']) {
      const file = fileInRoot(part, root.dir);
      if (file !== null && !files.includes(file)) files.push(file);
    }
  }
  const summary =
    'command' in definition
      ? [redactSecrets(definition.command), ...redactArguments(definition.args)].join(' ')
      : redactCredentials(definition.url);
  return { files, sources: [record.path, ...files], definition: runs, summary };
}

/** The regular file of the root one command-line word names through the root placeholder, if any. */
function fileInRoot(word: string, rootDir: string): string | null {
  const expanded = expandPlaceholders(word, Object.fromEntries(ROOT_NAMES.map((name) => [name, rootDir])));
  if (expanded === word) return null;
  const file = path.resolve(expanded);
  if (!isInside(rootDir, file)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}
