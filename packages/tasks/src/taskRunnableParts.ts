import path from 'node:path';
import { type Root, type RunnableParts } from '@loadout/kernel';
import { DocumentRefusedError, realpathInside, trackedFs } from '@loadout/files';
import { taskInterpreterOf } from './taskInterpreters.js';
import type { TaskRecord } from './TaskRecord.js';

/** The most files of one task folder that are fingerprinted; a folder holding more is refused whole. */
export const MAX_TASK_FILES = 512;

/**
 * What a task runs: every file in its folder but `TASK.md` (the implementation may read or
 * source its neighbours, hidden ones included), plus the frontmatter fields that choose what runs
 * (the implementation and the input schema). Its name, description and body are text: changing
 * them changes nothing that runs. Trust follows what these files import from outside the folder.
 */
export function taskRunnableParts(task: TaskRecord, root: Root): RunnableParts {
  const interpreter = taskInterpreterOf(task.implementation) ?? 'no interpreter';
  return {
    files: filesOf(root.dir, task.folder).filter((file) => file !== task.path),
    sources: [task.folder],
    // The input schema decides what reaches the implementation, and its patterns run on the
    // server as arguments are checked: a changed schema is a change to what runs.
    definition: { implementation: task.implementation, ...(task.inputSchema === null ? {} : { input: task.inputSchema }) },
    summary: `${interpreter} ${path.relative(root.dir, task.implementationPath).split(path.sep).join('/')}`,
  };
}

/** Every regular file below `folder`, in name order, following links only while they stay inside the root. */
function filesOf(rootDir: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    const names = trackedFs.readdirSync(dir).sort();
    for (const name of names) {
      const file = path.join(dir, name);
      const real = realpathInside(rootDir, file);
      if (real === null) continue;
      const stats = trackedFs.statSync(real);
      if (stats.isDirectory()) walk(file);
      else if (stats.isFile()) files.push(file);
      if (files.length > MAX_TASK_FILES) {
        throw new DocumentRefusedError(
          'TASK_TOO_MANY_FILES',
          `${path.relative(rootDir, folder)}: holds more than ${MAX_TASK_FILES} files; it cannot be approved`,
        );
      }
    }
  };
  walk(folder);
  return files;
}
