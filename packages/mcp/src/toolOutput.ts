import type { FinishedRun, Job } from '@loadout/jobs';
import { OperationFailedError } from '@loadout/files';
import { readStructuredOutput, type TaskInputSchemas, type TaskRecord } from '@loadout/tasks';
import { type OutputFileContent, readOutputFiles } from './taskOutputFiles.js';

/** The most of a task's stdout a tool result carries; the job keeps it all (up to the runner's limit). */
export const MAX_RESULT_CHARS = 100_000;
/** How much of stderr a failed call shows: its end, where the error usually is. */
const STDERR_TAIL_CHARS = 4000;

/** A tool call's result as MCP defines it (`CallToolResult`), built without the SDK. */
export interface ToolResult {
  readonly content: readonly ({ readonly type: 'text'; readonly text: string } | OutputFileContent)[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: true;
  readonly _meta?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A run whose output is not what its task declares under `output:`: never passed on as if it were. */
export class TaskOutputInvalidError extends OperationFailedError {
  constructor(dirName: string, jobId: number, problem: string) {
    super('TASK_OUTPUT_INVALID', `task ${dirName} (job ${jobId}): ${problem}`);
  }
}

/**
 * What a finished job becomes for the task it ran: for a task that declares an output schema and
 * succeeded, the JSON object it printed as `structuredContent` (and as text, for clients that read
 * only text), checked against the schema here, at the boundary; otherwise {@link toolResult}. The
 * files the run left in its output folder (a run this process waited for, {@link FinishedRun})
 * follow the text as image and resource content, checked by {@link readOutputFiles}.
 *
 * @throws TaskOutputInvalidError when the output or its files are not what a task may hand over
 */
export function taskToolResult(
  job: Job | FinishedRun,
  task: Pick<TaskRecord, 'dirName' | 'outputSchema' | 'outputSchemaError'>,
  schemas: TaskInputSchemas,
): ToolResult {
  const files = 'outputFolder' in job ? readOutputFiles(job.outputFolder, job.id) : { content: [] };
  if ('problem' in files) throw new TaskOutputInvalidError(task.dirName, job.id, files.problem);
  const withFiles = (result: ToolResult): ToolResult =>
    files.content.length === 0 ? result : { ...result, content: [...result.content, ...files.content] };
  if (job.status !== 'succeeded') return withFiles(toolResult(job));
  const structured = readStructuredOutput(schemas, task, job.output);
  if (structured === null) return withFiles(toolResult(job));
  if ('problem' in structured) throw new TaskOutputInvalidError(task.dirName, job.id, structured.problem);
  return withFiles({
    content: [{ type: 'text', text: JSON.stringify(structured.value) }],
    structuredContent: structured.value,
    _meta: { 'loadout/jobId': job.id, 'loadout/status': job.status },
  });
}

/** What a finished job becomes as text: stdout, or `isError` with why and the end of stderr. */
export function toolResult(job: Job): ToolResult {
  const _meta = { 'loadout/jobId': job.id, 'loadout/status': job.status };
  const runnerCut = job.error?.includes('output truncated') === true;
  if (job.status === 'succeeded') {
    return { content: [{ type: 'text', text: clipped(job.output, job.id, runnerCut) }], _meta };
  }
  const parts = [`task ${job.taskDirName} failed: ${job.error ?? `exit status ${job.exitCode ?? 'unknown'}`}`];
  if (job.stderr !== '') {
    const tail =
      job.stderr.length > STDERR_TAIL_CHARS
        ? `[… ${job.stderr.length - STDERR_TAIL_CHARS} characters before this]\n${job.stderr.slice(-STDERR_TAIL_CHARS)}`
        : job.stderr;
    parts.push(`stderr:\n${tail}`);
  }
  if (job.output !== '') parts.push(`stdout:\n${clipped(job.output, job.id, runnerCut)}`);
  return { content: [{ type: 'text', text: parts.join('\n\n') }], isError: true, _meta };
}

function clipped(text: string, jobId: number, runnerCut: boolean): string {
  if (text.length > MAX_RESULT_CHARS) {
    return `${text.slice(0, MAX_RESULT_CHARS)}\n[… output truncated: ${text.length - MAX_RESULT_CHARS} more characters are in job ${jobId}]`;
  }
  return runnerCut ? `${text}\n[… output truncated: the task printed more than Loadout keeps]` : text;
}
