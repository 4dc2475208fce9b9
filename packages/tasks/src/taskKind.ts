import path from 'node:path';
import {
  type CapabilityKind,
  DocumentRefusedError,
  type EntryScan,
  isInside,
  type KindFolderEntry,
  readMarkdownCapability,
} from '@loadout/kernel';
import type { TaskRecord } from './TaskRecord.js';

/** The task kind: `tasks/<dirName>/TASK.md`, identified by the folder name. */
export const taskKind: CapabilityKind<TaskRecord> = {
  kind: 'task',
  folder: 'tasks',
  sessionKey: 'tasks',
  readEntry: readTaskEntry,
};

/** Reads one task folder; the only function that turns a `TASK.md` into a record. */
export function readTaskEntry(entry: KindFolderEntry): EntryScan<TaskRecord> {
  if (!entry.isDirectory) return { records: [], diagnostics: [] };
  const read = readMarkdownCapability(entry.root.dir, path.join(entry.path, 'TASK.md'));
  if (read === null) return { records: [], diagnostics: [] };
  const { implementation, timeout, retries } = read.document.frontmatter;
  if (typeof implementation !== 'string' || implementation.trim() === '') {
    throw new DocumentRefusedError('TASK_IMPLEMENTATION_MISSING', `${read.relative}: frontmatter "implementation" must name a file in the task folder`);
  }
  const implementationPath = path.resolve(entry.path, implementation);
  if (!isInside(entry.path, implementationPath) || implementationPath === entry.path) {
    throw new DocumentRefusedError('TASK_IMPLEMENTATION_OUTSIDE', `${read.relative}: implementation "${implementation}" is outside the task folder`);
  }
  return {
    records: [
      {
        ...read.draft,
        id: entry.name,
        name: typeof read.document.frontmatter.name === 'string' && read.document.frontmatter.name.trim() !== '' ? read.draft.name : entry.name,
        dirName: entry.name,
        implementation,
        implementationPath,
        folder: entry.path,
        timeoutSeconds: positiveNumber(timeout),
        retries: Math.min(10, Math.max(0, Math.floor(positiveNumber(retries) ?? 0))),
      },
    ],
    diagnostics: [],
  };
}

function positiveNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}
