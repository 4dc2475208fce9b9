import type { CapabilityRecord } from '@loadout/kernel';

/** A task: `tasks/<dirName>/TASK.md`, whose frontmatter `implementation` names a file in that folder. */
export interface TaskRecord extends CapabilityRecord {
  readonly kind: 'task';
  /** The task's identity: its folder name. Also what a queued job stores. */
  readonly dirName: string;
  /** The implementation file as written in the frontmatter, relative to the task folder. */
  readonly implementation: string;
  /** Absolute path of the implementation file. */
  readonly implementationPath: string;
  /** Absolute path of the task folder. */
  readonly folder: string;
  /** Seconds a run may take, from the frontmatter `timeout`; null for the runner's default. */
  readonly timeoutSeconds: number | null;
  /** Extra attempts after a failed run, from the frontmatter `retries`. */
  readonly retries: number;
  /**
   * The JSON Schema the task's input must match, from the frontmatter `input` (an object schema);
   * null when the task declares none and takes any JSON object.
   */
  readonly inputSchema: Readonly<Record<string, unknown>> | null;
  /** Why the declared `input` cannot be used as a schema; null when it can (or none is declared). */
  readonly inputSchemaError: string | null;
  /**
   * The JSON Schema the task's stdout, read as JSON, must match, from the frontmatter `output` (an
   * object schema): an MCP call then answers it as `structuredContent`. Null when none is declared.
   */
  readonly outputSchema: Readonly<Record<string, unknown>> | null;
  /** Why the declared `output` cannot be used as a schema; null when it can (or none is declared). */
  readonly outputSchemaError: string | null;
  /**
   * Whether an MCP client that speaks the Tasks extension gets a call of it as an MCP task (created
   * at once, polled, cancelled, its result fetched) instead of a held request, from the frontmatter
   * `mcp-task`: `never` (the default: a short call stays plain), `optional` (a task when the client
   * speaks the extension, else plain), `required` (refused to a client that does not).
   */
  readonly mcpTask: McpTaskSupport;
}

/** How a task's MCP calls may run: see {@link TaskRecord.mcpTask}. */
export type McpTaskSupport = 'never' | 'optional' | 'required';

export const MCP_TASK_SUPPORT: readonly McpTaskSupport[] = ['never', 'optional', 'required'];
