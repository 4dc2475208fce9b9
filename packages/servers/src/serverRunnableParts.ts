import fs from 'node:fs';
import path from 'node:path';
import { isInside, redactArguments, redactCredentials, redactSecrets, type Root, type RunnableParts } from '@loadout/kernel';
import { serverDefinitionOf, type ServerRecord } from './ServerDefinition.js';

/** How a plugin's server names a file of its own root in its command line. */
const ROOT_PLACEHOLDER = /\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/g;

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
  if (!word.includes('PLUGIN_ROOT}')) return null;
  const file = path.resolve(word.replace(ROOT_PLACEHOLDER, rootDir));
  if (!isInside(rootDir, file)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}
