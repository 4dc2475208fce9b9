import path from 'node:path';

/**
 * The interpreters a task's implementation runs with, by its file extension. The one list: the
 * runner picks an interpreter from it, the command line's help and the screen's hints print it,
 * and the docs are checked against it.
 */
export const TASK_INTERPRETERS = [
  { interpreter: 'node', extensions: ['.mjs', '.js', '.cjs'] },
  { interpreter: 'bash', extensions: ['.sh'] },
  { interpreter: 'python3', extensions: ['.py'] },
] as const;

/** An interpreter a task can run with; `node` is the running Node.js itself. */
export type TaskInterpreter = (typeof TASK_INTERPRETERS)[number]['interpreter'];

/** Every extension a task's implementation may have, in the order of {@link TASK_INTERPRETERS}. */
export const RUNNABLE_EXTENSIONS: readonly string[] = TASK_INTERPRETERS.flatMap((entry) => entry.extensions);

/** The interpreter for an implementation file (its extension, in any case), or null when none runs it. */
export function taskInterpreterOf(file: string): TaskInterpreter | null {
  const extension = path.extname(file).toLowerCase();
  return TASK_INTERPRETERS.find((entry) => (entry.extensions as readonly string[]).includes(extension))?.interpreter ?? null;
}

/** The list in words, e.g. `.mjs, .js or .cjs with node; .sh with bash; .py with python3`. */
export function describeRunnableExtensions(): string {
  return TASK_INTERPRETERS.map((entry) => `${orList(entry.extensions)} with ${entry.interpreter}`).join('; ');
}

function orList(items: readonly string[]): string {
  return items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1] as string}`;
}
