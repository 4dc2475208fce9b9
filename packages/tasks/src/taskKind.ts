import path from 'node:path';
import { type CapabilityKind, type EntryScan, type KindDocument, type KindFolderEntry, readMarkdownCapability } from '@loadout/kernel';
import { DocumentRefusedError, isInside, realpathInside, trackedFs } from '@loadout/files';
import { hasControlCharacter, taskNameProblem } from './taskName.js';
import { MCP_TASK_SUPPORT, type McpTaskSupport, type TaskRecord } from './TaskRecord.js';
import { taskRunnableParts } from './taskRunnableParts.js';

/** A task is `tasks/<dirName>/TASK.md`; its id is its folder name, whatever its frontmatter `name`. */
export const TASK_DOCUMENT = { file: 'TASK.md', idRule: 'entry', nameField: 'frontmatter' } as const satisfies KindDocument;

/** The task kind's singular name: what a caller that needs only tasks opens a session for. */
export const TASK_KIND = 'task';

/** The task kind: `tasks/<dirName>/TASK.md`, identified by the folder name. */
export const taskKind: CapabilityKind<TaskRecord> = {
  kind: TASK_KIND,
  folder: 'tasks',
  sessionKey: 'tasks',
  document: TASK_DOCUMENT,
  readEntry: readTaskEntry,
  runnable: taskRunnableParts,
};

/**
 * Reads one task folder; the only function that turns a `TASK.md` into a record. A folder whose
 * name breaks the one task-name rule ({@link taskNameProblem}) is refused here as it is on create
 * and on lookup, so what is listed, what can be switched and what runs are the same tasks.
 */
export function readTaskEntry(entry: KindFolderEntry): EntryScan<TaskRecord> {
  if (!entry.isDirectory) return { records: [], diagnostics: [] };
  const nameProblem = taskNameProblem(entry.name);
  if (nameProblem !== null) {
    throw new DocumentRefusedError('TASK_NAME_INVALID', `tasks/${JSON.stringify(entry.name)}: not a task folder name: ${nameProblem}`);
  }
  const read = readMarkdownCapability(entry.root.dir, path.join(entry.path, TASK_DOCUMENT.file), TASK_DOCUMENT);
  if (read === null) return { records: [], diagnostics: [] };
  const { implementation, timeout, retries, input, output } = read.document.frontmatter;
  const mcpTask = read.document.frontmatter['mcp-task'];
  if (typeof implementation !== 'string' || implementation.trim() === '') {
    throw new DocumentRefusedError(
      'TASK_IMPLEMENTATION_MISSING',
      `${read.relative}: frontmatter "implementation" must name a file in the task folder`,
    );
  }
  if (hasControlCharacter(implementation)) {
    throw new DocumentRefusedError(
      'TASK_IMPLEMENTATION_INVALID',
      `${read.relative}: implementation ${JSON.stringify(implementation)} holds a line break or another control character`,
    );
  }
  const implementationPath = path.resolve(entry.path, implementation);
  if (!isInside(entry.path, implementationPath) || implementationPath === entry.path) {
    throw new DocumentRefusedError(
      'TASK_IMPLEMENTATION_OUTSIDE',
      `${read.relative}: implementation "${implementation}" is outside the task folder`,
    );
  }
  // What runs is the real file: a link (or a linked folder on the way) must stay inside the task folder.
  const real = realpathInside(entry.root.dir, implementationPath);
  const realFolder = realpathInside(entry.root.dir, entry.path);
  if (real === null || realFolder === null || !trackedFs.statSync(real).isFile()) {
    throw new DocumentRefusedError(
      'TASK_IMPLEMENTATION_MISSING',
      `${read.relative}: implementation "${implementation}" is not a file in the task folder`,
    );
  }
  if (!isInside(realFolder, real)) {
    throw new DocumentRefusedError(
      'TASK_IMPLEMENTATION_OUTSIDE',
      `${read.relative}: implementation "${implementation}" leads outside the task folder`,
    );
  }
  const schema = readObjectSchema(input, 'input');
  const outputSchema = readObjectSchema(output, 'output');
  const support = readMcpTaskSupport(mcpTask);
  const problems = [
    schema.error === null ? null : { code: 'TASK_INPUT_SCHEMA_INVALID', message: schema.error },
    outputSchema.error === null ? null : { code: 'TASK_OUTPUT_SCHEMA_INVALID', message: outputSchema.error },
    support.error === null ? null : { code: 'TASK_MCP_TASK_INVALID', message: support.error },
  ].filter((problem) => problem !== null);
  return {
    records: [
      {
        ...read.draft,
        dirName: entry.name,
        implementation,
        implementationPath,
        folder: entry.path,
        timeoutSeconds: positiveNumber(timeout),
        retries: Math.min(10, Math.max(0, Math.floor(positiveNumber(retries) ?? 0))),
        inputSchema: schema.schema,
        inputSchemaError: schema.error,
        outputSchema: outputSchema.schema,
        outputSchemaError: outputSchema.error,
        mcpTask: support.value,
      },
    ],
    diagnostics: problems.map(({ code, message }) => ({
      code,
      severity: 'warning' as const,
      path: read.draft.path,
      message: `${read.relative}: ${message}`,
    })),
  };
}

/**
 * The frontmatter `input` or `output`: a JSON Schema for an object (agents call a task with named
 * arguments; MCP's structured content is an object), written in YAML or JSON. Its `type`, when
 * given, must be `object`; left out, it is taken as one. Anything else is an error the session
 * reports and callers refuse on.
 */
function readObjectSchema(
  value: unknown,
  field: 'input' | 'output',
): { schema: Readonly<Record<string, unknown>> | null; error: string | null } {
  if (value === undefined || value === null) return { schema: null, error: null };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { schema: null, error: `frontmatter "${field}" must be a JSON Schema object, e.g. { type: object, properties: { … } }` };
  }
  const schema = value as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== 'object') {
    return { schema: null, error: `frontmatter "${field}" must describe an object (type: object), not ${JSON.stringify(schema.type)}` };
  }
  return { schema: schema.type === undefined ? { type: 'object', ...schema } : schema, error: null };
}

/** The frontmatter `mcp-task`: one of {@link MCP_TASK_SUPPORT}, `never` when left out or not one of them (reported). */
function readMcpTaskSupport(value: unknown): { value: McpTaskSupport; error: string | null } {
  if (value === undefined || value === null) return { value: 'never', error: null };
  if (typeof value === 'string' && (MCP_TASK_SUPPORT as readonly string[]).includes(value))
    return { value: value as McpTaskSupport, error: null };
  return {
    value: 'never',
    error: `frontmatter "mcp-task" must be one of ${MCP_TASK_SUPPORT.join(', ')}, not ${JSON.stringify(value)}; calls stay plain`,
  };
}

function positiveNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}
