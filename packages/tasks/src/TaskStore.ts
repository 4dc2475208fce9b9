import path from 'node:path';
import {
  collisionKey,
  formatMarkdown,
  type Level,
  readKindEntry,
  readMarkdownInside,
  readTextInside,
  type Root,
  Session,
  token,
} from '@loadout/kernel';
import {
  checkWriteInside,
  DocumentRefusedError,
  type DocumentUnreadableError,
  listFolderInside,
  trackedFs,
  unreadable,
  writeFileAtomicSync,
} from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { PluginTaskReadOnlyError, TaskExistsError, TaskInputInvalidError, TaskNotFoundError, TaskUnreadableError } from './TaskErrors.js';
import { TASK_DOCUMENT, taskKind } from './taskKind.js';
import { assertTaskName, isPlainFileName } from './taskName.js';
import type { TaskRecord } from './TaskRecord.js';

/** A task's implementation: its file name in the task folder, and its text. */
export interface TaskImplementation {
  readonly filename: string;
  readonly content: string;
}

/** What creating a task needs. */
export interface NewTask {
  readonly name: string;
  readonly description: string;
  /** The implementation's file name inside the task folder, and its content. */
  readonly implementation: TaskImplementation;
  /** Markdown after the frontmatter: instructions for people and agents. */
  readonly body?: string;
  readonly timeoutSeconds?: number;
  readonly retries?: number;
}

/** A change to a task; fields left out, and fields sent with the value they have, stay as they are. */
export interface TaskPatch {
  readonly name?: string;
  readonly description?: string;
  readonly body?: string;
  readonly implementation?: TaskImplementation;
  /** Seconds a run may take; null removes the task's own limit (the runner's default applies). */
  readonly timeoutSeconds?: number | null;
  readonly retries?: number;
}

/**
 * One task whole, as `GET /api/tasks/:dirName` answers it and `PUT` takes it back: its record
 * with the implementation's file name and content (in place of the file name alone) and the
 * Markdown body after the frontmatter. A {@link TaskPatch} is the part of it that can change.
 */
export type TaskDocument = Omit<TaskRecord, 'implementation'> & {
  readonly implementation: TaskImplementation;
  readonly body: string;
};

/** The longest a task's run may be limited to, and the most retries, as create and update accept them. */
export const MAX_TASK_TIMEOUT_SECONDS = 86_400;
export const MAX_TASK_RETRIES = 10;

/**
 * Tasks of one session. Reading spans every root (project, owner, plugins, in that order); writing
 * touches only the owner's roots, and never through a link. Every path that runs a task resolves
 * it through {@link TaskStore.getTaskByDirName}.
 */
export interface TaskStore {
  listTasks(): readonly TaskRecord[];
  getTaskByDirName(dirName: string): TaskRecord;
  /** The task whole: {@link TaskDocument}. */
  getTaskDocument(dirName: string): TaskDocument;
  createTask(dirName: string, task: NewTask, level?: Level): TaskRecord;
  /** Changes what `patch` changes; a patch that changes nothing writes nothing. */
  updateTask(dirName: string, patch: TaskPatch): TaskRecord;
  deleteTask(dirName: string): TaskRecord;
}
export const TaskStore = token<TaskStore>('tasks.store');

/** Why a scan refused an entry: it breaks a rule, or the file system would not read it. */
type Refusal = DocumentRefusedError | DocumentUnreadableError;

@injectable()
export class FileTaskStore implements TaskStore {
  constructor(@inject(Session) private readonly session: Session) {}

  listTasks(): readonly TaskRecord[] {
    return this.session.recordsOf<TaskRecord>('task');
  }

  /**
   * The task named `dirName` as the session sees it: read from disk now, first root wins, and
   * only when it is on. Refuses a name that breaks the task-name rule. A folder of that name a
   * scan refuses is passed over as the session passes over it; when no root has the task, the
   * error says why: not found (with the refusal, if there was one), or unreadable when the file
   * system would not read it.
   */
  getTaskByDirName(dirName: string): TaskRecord {
    assertTaskName(dirName);
    let refusal: Refusal | null = null;
    for (const root of this.session.roots) {
      const found = lookUpIn(root, dirName);
      if (found === null) continue;
      if (found.record === null) {
        refusal ??= found.refusal;
        continue;
      }
      const admitted = this.session.admitted(found.record);
      if (admitted === undefined) break;
      return admitted;
    }
    if (refusal?.category === 'failed') throw new TaskUnreadableError(dirName, refusal);
    throw new TaskNotFoundError(dirName, refusal ?? undefined);
  }

  getTaskDocument(dirName: string): TaskDocument {
    const record = this.getTaskByDirName(dirName);
    const root = this.rootOf(record);
    const document = readMarkdownInside(root.dir, record.path);
    if (document === null) throw new TaskNotFoundError(dirName);
    const content = readTextInside(root.dir, record.implementationPath) ?? '';
    return { ...record, implementation: { filename: record.implementation, content }, body: document.body };
  }

  createTask(dirName: string, task: NewTask, level: Level = 'global'): TaskRecord {
    assertTaskName(dirName);
    const root = this.ownerRoot(level);
    const tasksFolder = path.join(root.dir, taskKind.folder);
    checkWriteInside(root.dir, tasksFolder, { folder: true });
    if (entryNameIn(root, dirName) !== null) throw new TaskExistsError(dirName);
    checkImplementation(task.implementation);
    const fields: Record<string, unknown> = {
      name: requireText(task.name, 'name'),
      description: requireText(task.description, 'description'),
      implementation: task.implementation.filename,
    };
    if (task.timeoutSeconds !== undefined) fields.timeout = requireTimeout(task.timeoutSeconds);
    if (task.retries !== undefined) fields.retries = requireRetries(task.retries);
    const staging = trackedFs.mkdtempSync(path.join(ensureDir(tasksFolder), `.${dirName.slice(0, 32)}-new-`));
    try {
      trackedFs.writeFileSync(path.join(staging, task.implementation.filename), task.implementation.content, { mode: 0o644 });
      trackedFs.writeFileSync(path.join(staging, TASK_DOCUMENT.file), formatMarkdown(fields, task.body ?? ''));
      trackedFs.renameSync(staging, path.join(tasksFolder, dirName));
    } catch (error) {
      trackedFs.rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    return this.readCreated(root, dirName);
  }

  updateTask(dirName: string, patch: TaskPatch): TaskRecord {
    const current = this.ownedTask(dirName, 'update');
    const root = this.rootOf(current);
    const document = readMarkdownInside(root.dir, current.path);
    if (document === null) throw new TaskNotFoundError(dirName);
    // Every field is compared with what a read shows, so sending a task back as it was read
    // changes nothing and writes nothing.
    const fields: Record<string, unknown> = { ...document.frontmatter };
    let changed = false;
    if (patch.name !== undefined && patch.name !== current.name) {
      fields.name = requireText(patch.name, 'name');
      changed = true;
    }
    if (patch.description !== undefined && patch.description !== current.description) {
      fields.description = requireText(patch.description, 'description');
      changed = true;
    }
    if (patch.timeoutSeconds !== undefined && patch.timeoutSeconds !== current.timeoutSeconds) {
      if (patch.timeoutSeconds === null) delete fields.timeout;
      else fields.timeout = requireTimeout(patch.timeoutSeconds);
      changed = true;
    }
    if (patch.retries !== undefined && patch.retries !== current.retries) {
      fields.retries = requireRetries(patch.retries);
      changed = true;
    }
    const body = patch.body ?? document.body;
    if (body !== document.body) changed = true;
    let implementation: { file: string; content: string } | null = null;
    if (patch.implementation !== undefined && !sameImplementation(root, current, patch.implementation)) {
      checkImplementation(patch.implementation);
      implementation = { file: path.join(current.folder, patch.implementation.filename), content: patch.implementation.content };
      fields.implementation = patch.implementation.filename;
      changed = true;
    }
    if (!changed) return current;
    // Both writes are checked before either is made: a link anywhere on the way refuses the
    // update and leaves both files as they were.
    checkWriteInside(root.dir, current.path);
    if (implementation !== null) checkWriteInside(root.dir, implementation.file);
    if (implementation !== null) writeFileAtomicSync(implementation.file, implementation.content);
    writeFileAtomicSync(current.path, formatMarkdown(fields, body));
    return this.readCreated(root, dirName);
  }

  deleteTask(dirName: string): TaskRecord {
    const current = this.ownedTask(dirName, 'delete');
    trackedFs.rmSync(current.folder, { recursive: true });
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

  /** The root a record was read from. */
  private rootOf(record: TaskRecord): Root {
    const root = this.session.roots.find((candidate) => candidate.plugin === record.plugin && candidate.level === record.level);
    if (root === undefined) throw new TaskNotFoundError(record.dirName);
    return root;
  }

  private readCreated(root: Root, dirName: string): TaskRecord {
    const found = lookUpIn(root, dirName);
    if (found !== null && found.record !== null) return found.record;
    const refusal = found?.refusal ?? null;
    if (refusal?.category === 'failed') throw new TaskUnreadableError(dirName, refusal);
    throw new TaskNotFoundError(dirName, refusal ?? undefined);
  }
}

/**
 * The task `dirName` names in one root, read exactly as a session scan reads it: its record, or
 * why the scan refused it (then `record` is null). Null when the root holds no such folder.
 * Folder names compare case-insensitively, as ids do when a session shadows one root with another.
 */
function lookUpIn(root: Root, dirName: string): { record: TaskRecord | null; refusal: Refusal | null } | null {
  const folder = path.join(root.dir, taskKind.folder);
  try {
    const name = entryNameIn(root, dirName);
    if (name === null) return null;
    const scan = readKindEntry(taskKind, root, name);
    if (scan === null) return null;
    return { record: (scan.records[0] as TaskRecord | undefined) ?? null, refusal: scan.refusal ?? null };
  } catch (error) {
    if (error instanceof DocumentRefusedError) return { record: null, refusal: error };
    return { record: null, refusal: unreadable('FOLDER_UNREADABLE', folder, error) };
  }
}

/**
 * The entry of `root`'s tasks folder whose name is `dirName`, compared case-insensitively. Throws
 * what listing the folder throws (a link out of the root, the file system's error): a folder that
 * cannot be listed is not one that holds no such task.
 */
function entryNameIn(root: Root, dirName: string): string | null {
  // One listing answers both: the exact spelling first, then any spelling that collides. (Asking
  // the file system for the exact name would be wrong on a case-insensitive one.)
  const names = listFolderInside(root.dir, path.join(root.dir, taskKind.folder))?.names ?? [];
  if (names.includes(dirName)) return dirName;
  const wanted = collisionKey(dirName);
  return names.find((name) => collisionKey(name) === wanted) ?? null;
}

/** Whether `implementation` is what the task already runs: the same file name and the same text. */
function sameImplementation(root: Root, current: TaskRecord, implementation: TaskImplementation): boolean {
  if (implementation.filename !== current.implementation) return false;
  try {
    return readTextInside(root.dir, current.implementationPath) === implementation.content;
  } catch (error) {
    // A current file that cannot be read as a document (too large, not a regular file) is not
    // the text sent; the write that follows is checked on its own.
    if (error instanceof DocumentRefusedError) return false;
    throw error;
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

function requireTimeout(value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TASK_TIMEOUT_SECONDS) {
    throw new TaskInputInvalidError(`timeoutSeconds must be a number of seconds above 0 and at most ${MAX_TASK_TIMEOUT_SECONDS}`);
  }
  return value;
}

function requireRetries(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_TASK_RETRIES) {
    throw new TaskInputInvalidError(`retries must be a whole number from 0 to ${MAX_TASK_RETRIES}`);
  }
  return value;
}

function requireText(value: string, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1024) {
    throw new TaskInputInvalidError(`${field} must be 1-1024 characters`);
  }
  return value;
}

function ensureDir(dir: string): string {
  trackedFs.mkdirSync(dir, { recursive: true });
  return dir;
}
