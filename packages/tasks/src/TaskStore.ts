import fs from 'node:fs';
import path from 'node:path';
import {
  collisionKey,
  formatMarkdown,
  type Level,
  listFolderInside,
  readKindEntry,
  readMarkdownInside,
  type Root,
  Session,
  token,
  writeFileAtomicSync,
} from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import {
  PluginTaskReadOnlyError,
  TaskExistsError,
  TaskInputInvalidError,
  TaskNotFoundError,
} from './TaskErrors.js';
import { TASK_DOCUMENT, taskKind } from './taskKind.js';
import { assertTaskName, isPlainFileName } from './taskName.js';
import type { TaskRecord } from './TaskRecord.js';

/** What creating a task needs. */
export interface NewTask {
  readonly name: string;
  readonly description: string;
  /** The implementation's file name inside the task folder, and its content. */
  readonly implementation: { readonly filename: string; readonly content: string };
  /** Markdown after the frontmatter: instructions for people and agents. */
  readonly body?: string;
  readonly timeoutSeconds?: number;
  readonly retries?: number;
}

/** A change to a task; fields left out stay as they are. */
export interface TaskPatch {
  readonly name?: string;
  readonly description?: string;
  readonly body?: string;
  readonly implementation?: { readonly filename: string; readonly content: string };
}

/**
 * Tasks of one session. Reading spans every root (project, owner, plugins, in that order); writing
 * touches only the owner's roots. Every path that runs a task resolves it through
 * {@link TaskStore.getTaskByDirName}.
 */
export interface TaskStore {
  listTasks(): readonly TaskRecord[];
  getTaskByDirName(dirName: string): TaskRecord;
  createTask(dirName: string, task: NewTask, level?: Level): TaskRecord;
  updateTask(dirName: string, patch: TaskPatch): TaskRecord;
  deleteTask(dirName: string): TaskRecord;
}
export const TaskStore = token<TaskStore>('tasks.store');

@injectable()
export class FileTaskStore implements TaskStore {
  constructor(@inject(Session) private readonly session: Session) {}

  listTasks(): readonly TaskRecord[] {
    return this.session.recordsOf<TaskRecord>('task');
  }

  /**
   * The task named `dirName` as the session sees it: read from disk now, first root wins, and
   * only when it is on. Refuses a name that could leave its root.
   */
  getTaskByDirName(dirName: string): TaskRecord {
    assertTaskName(dirName);
    for (const root of this.session.roots) {
      const record = readTaskIn(root, dirName);
      if (record === null) continue;
      if (!this.session.isOn(record)) break;
      return record;
    }
    throw new TaskNotFoundError(dirName);
  }

  createTask(dirName: string, task: NewTask, level: Level = 'global'): TaskRecord {
    assertTaskName(dirName);
    const root = this.ownerRoot(level);
    const folder = path.join(root.dir, taskKind.folder, dirName);
    if (entryNameIn(root, dirName) !== null) throw new TaskExistsError(dirName);
    checkImplementation(task.implementation);
    const staging = fs.mkdtempSync(path.join(ensureDir(path.join(root.dir, taskKind.folder)), `.${dirName.slice(0, 32)}-new-`));
    try {
      const fields: Record<string, unknown> = {
        name: requireText(task.name, 'name'),
        description: requireText(task.description, 'description'),
        implementation: task.implementation.filename,
      };
      if (task.timeoutSeconds !== undefined) fields.timeout = task.timeoutSeconds;
      if (task.retries !== undefined) fields.retries = task.retries;
      fs.writeFileSync(path.join(staging, task.implementation.filename), task.implementation.content, { mode: 0o644 });
      fs.writeFileSync(path.join(staging, TASK_DOCUMENT.file), formatMarkdown(fields, task.body ?? ''));
      fs.renameSync(staging, folder);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    return this.readCreated(root, dirName);
  }

  updateTask(dirName: string, patch: TaskPatch): TaskRecord {
    const current = this.ownedTask(dirName, 'update');
    const root = this.rootOf(current);
    const document = readMarkdownInside(root.dir, current.path);
    if (document === null) throw new TaskNotFoundError(dirName);
    const fields: Record<string, unknown> = { ...document.frontmatter };
    if (patch.name !== undefined) fields.name = requireText(patch.name, 'name');
    if (patch.description !== undefined) fields.description = requireText(patch.description, 'description');
    if (patch.implementation !== undefined) {
      checkImplementation(patch.implementation);
      writeFileAtomicSync(path.join(current.folder, patch.implementation.filename), patch.implementation.content);
      fields.implementation = patch.implementation.filename;
    }
    writeFileAtomicSync(current.path, formatMarkdown(fields, patch.body ?? document.body));
    return this.readCreated(root, dirName);
  }

  deleteTask(dirName: string): TaskRecord {
    const current = this.ownedTask(dirName, 'delete');
    fs.rmSync(current.folder, { recursive: true });
    return current;
  }

  /** The task the session resolves, refused when a plugin provides it. */
  private ownedTask(dirName: string, action: 'update' | 'delete'): TaskRecord {
    const current = this.getTaskByDirName(dirName);
    if (current.plugin !== null) throw new PluginTaskReadOnlyError(dirName, current.plugin, action);
    return current;
  }

  private ownerRoot(level: Level): Root {
    const root = this.session.roots.find((candidate) => candidate.writable && candidate.level === level);
    if (root === undefined) {
      throw new TaskInputInvalidError(level === 'project' ? 'this session has no project to write a task into' : 'no writable global root');
    }
    return root;
  }

  private rootOf(record: TaskRecord): Root {
    const root = this.session.roots.find((candidate) => candidate.writable && candidate.level === record.level);
    if (root === undefined) throw new TaskNotFoundError(record.dirName);
    return root;
  }

  private readCreated(root: Root, dirName: string): TaskRecord {
    const record = readTaskIn(root, dirName);
    if (record === null) throw new TaskNotFoundError(dirName);
    return record;
  }
}

/**
 * The task `dirName` names in one root, read exactly as a session scan reads it. Folder names
 * compare case-insensitively, as ids do when a session shadows one root with another.
 */
function readTaskIn(root: Root, dirName: string): TaskRecord | null {
  const name = entryNameIn(root, dirName);
  if (name === null) return null;
  const scan = readKindEntry(taskKind, root, name);
  return (scan?.records[0] as TaskRecord | undefined) ?? null;
}

/** The entry of `root`'s tasks folder whose name is `dirName`, compared case-insensitively. */
function entryNameIn(root: Root, dirName: string): string | null {
  // One listing answers both: the exact spelling first, then any spelling that collides. (Asking
  // the file system for the exact name would be wrong on a case-insensitive one.)
  const names = listNames(root);
  if (names.includes(dirName)) return dirName;
  const wanted = collisionKey(dirName);
  return names.find((name) => collisionKey(name) === wanted) ?? null;
}

/** Every name in `root`'s tasks folder, hidden ones too (the caller named one); none when it cannot be listed. */
function listNames(root: Root): readonly string[] {
  try {
    return listFolderInside(root.dir, path.join(root.dir, taskKind.folder))?.names ?? [];
  } catch {
    return [];
  }
}

function checkImplementation(implementation: { filename: string; content: string }): void {
  if (!isPlainFileName(implementation.filename)) {
    throw new TaskInputInvalidError('implementation.filename must be one plain file name in the task folder');
  }
  if (implementation.filename.toLowerCase() === TASK_DOCUMENT.file.toLowerCase()) {
    throw new TaskInputInvalidError('implementation.filename cannot be TASK.md, the task document itself');
  }
  if (typeof implementation.content !== 'string' || implementation.content.length > 1024 * 1024) {
    throw new TaskInputInvalidError('implementation.content must be text of at most 1 MiB');
  }
}

function requireText(value: string, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1024) {
    throw new TaskInputInvalidError(`${field} must be 1-1024 characters`);
  }
  return value;
}

function ensureDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
