import path from 'node:path';
import { expandPlaceholders, redactArguments, redactCredentials, redactSecrets, type Root, type RunnableParts } from '@loadout/kernel';
import { isInside, isRegularFile, pathAndRealPath } from '@loadout/files';
import { serverDefinitionOf, type ServerRecord } from './ServerDefinition.js';

/** The names a plugin's server may call its own root by in its command line. */
const ROOT_NAMES = ['PLUGIN_ROOT', 'CLAUDE_PLUGIN_ROOT'] as const;

/**
 * What a server runs: its definition without the text fields (command, arguments, environment,
 * working folder, or URL and headers), and every file of its root its command line names, however
 * it names it: through `${PLUGIN_ROOT}` (a Loadout server document), as the absolute path a
 * plugin reader expanded `${CLAUDE_PLUGIN_ROOT}` or `./` to, or relative to its working folder
 * (`node dist/index.js`). Trust follows what those files load from there.
 */
export function serverRunnableParts(record: ServerRecord, root: Root): RunnableParts {
  const definition = serverDefinitionOf(record);
  if (definition === null) return { files: [], sources: [record.path], definition: null, summary: '(no definition)' };
  const { name: _name, description: _description, gates: _gates, ...runs } = definition;
  const files = 'command' in definition ? filesNamed(definition, root.dir) : [];
  const summary =
    'command' in definition
      ? [redactSecrets(definition.command), ...redactArguments(definition.args)].join(' ')
      : redactCredentials(definition.url);
  return { files, sources: [record.path, ...files], definition: runs, summary };
}

/** The regular files of the root that a stdio server's command, arguments or environment name. */
function filesNamed(
  definition: { command: string; args: readonly string[]; env?: Readonly<Record<string, string>>; cwd?: string },
  rootDir: string,
): string[] {
  const roots = pathAndRealPath(rootDir);
  const placeholders = Object.fromEntries(ROOT_NAMES.map((name) => [name, rootDir]));
  const expandedCwd = definition.cwd === undefined ? rootDir : path.resolve(rootDir, expandPlaceholders(definition.cwd, placeholders));
  // Relative words are read against the working folder only when it is the plugin's own.
  const cwd = roots.some((root) => isInside(root, expandedCwd)) ? expandedCwd : null;
  const words = [definition.command, ...definition.args, ...Object.values(definition.env ?? {}).flatMap((value) => value.split(/\s+/))];
  const files: string[] = [];
  for (const word of words) {
    // `--config=./x.json` names a file after its `=`.
    const equals = word.indexOf('=');
    for (const written of equals > 0 && word.startsWith('-') ? [word, word.slice(equals + 1)] : [word]) {
      const expanded = expandPlaceholders(written, placeholders);
      if (expanded === '' || expanded.startsWith('-')) continue;
      const file = path.isAbsolute(expanded) ? path.normalize(expanded) : cwd === null ? null : path.resolve(cwd, expanded);
      if (file !== null && roots.some((root) => isInside(root, file)) && isRegularFile(file) && !files.includes(file)) files.push(file);
    }
  }
  return files;
}
