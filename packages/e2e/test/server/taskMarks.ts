import fs from 'node:fs';
import path from 'node:path';

/**
 * The lines a test task appended to `<project>/<name>`, each split at its spaces: the record the
 * tasks themselves keep of who ran when, whatever the servers believe. None while there is no file.
 */
export function markLines(project: string, name: string): string[][] {
  const file = path.join(project, name);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));
}
