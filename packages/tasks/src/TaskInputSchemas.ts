import { type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import { forArguments, isPatternFormat, type LinearSchema, withLinearPatterns } from './linearPatterns.js';
import { TaskRunInputRefusedError } from './TaskErrors.js';
import type { TaskRecord } from './TaskRecord.js';

/** The schema of a task that declares none: any JSON object. */
export const FREE_FORM_INPUT: Readonly<Record<string, unknown>> = { type: 'object', additionalProperties: true };

/** How many validation messages a refusal lists. */
const MAX_MESSAGES = 5;

/** A usable schema: checks arguments, answering null when they match or a message when not. */
export type InputCheck = (args: unknown) => string | null;

/**
 * Checks tool arguments against the JSON Schema a task declares in its `input:` frontmatter. The
 * validator interprets the schema as data (no code is generated from it); each schema is prepared
 * once per distinct text. A schema that cannot be applied is reported, never silently widened.
 */
export class TaskInputSchemas {
  private readonly prepared = new Map<string, InputCheck | { readonly error: string }>();

  /**
   * The check for `schema`, or why the schema cannot be used.
   *
   * @param mismatch what a failed check's message begins with: which value did not match what
   */
  prepare(schema: Readonly<Record<string, unknown>>, mismatch = INPUT_MISMATCH): InputCheck | { readonly error: string } {
    const key = `${mismatch}\0${JSON.stringify(schema)}`;
    let entry = this.prepared.get(key);
    if (entry === undefined) {
      entry = compile(schema, mismatch);
      if (this.prepared.size >= 1000) this.prepared.clear();
      this.prepared.set(key, entry);
    }
    return entry;
  }
}

const INPUT_MISMATCH = "the arguments do not match the task's input schema";
const OUTPUT_MISMATCH = "the task's output does not match its output schema";

function compile(schema: Readonly<Record<string, unknown>>, mismatch: string): InputCheck | { readonly error: string } {
  let validator: Validator;
  let linearSchema: LinearSchema;
  const draft = draftOf(schema);
  try {
    // The validator annotates the schema objects it is given: it gets a copy of the record's,
    // with every pattern moved out of the backtracking engine's reach.
    linearSchema = withLinearPatterns(schema);
    validator = new Validator(structuredClone(linearSchema.schema) as Schema, draft, false);
    validator.validate({});
  } catch (error) {
    return { error: `its ${mismatch === INPUT_MISMATCH ? 'input' : 'output'} schema cannot be used: ${(error as Error).message}` };
  }
  return (args) => {
    let result: ReturnType<Validator['validate']>;
    try {
      // `patternProperties` keys become literal alternations of these arguments' own names.
      const checker = linearSchema.patternProperties
        ? new Validator(forArguments(linearSchema.schema, args) as Schema, draft, false)
        : validator;
      result = checker.validate(args);
    } catch (error) {
      return `${mismatch === INPUT_MISMATCH ? 'the input' : 'the output'} schema could not be applied: ${(error as Error).message}`;
    }
    if (result.valid) return null;
    // The deepest messages say what is wrong; the ones above them only repeat "does not match".
    const messages = result.errors
      .filter((error) => !/does not match|not all|failed/i.test(error.error) || isPatternFormat(error.error))
      .map(describe);
    const shown = (messages.length > 0 ? messages : result.errors.map(describe)).slice(0, MAX_MESSAGES);
    return `${mismatch}: ${shown.join('; ')}`;
  };
}

function describe(error: { instanceLocation: string; error: string }): string {
  const where = error.instanceLocation.replace(/^#\/?/, '');
  const text = isPatternFormat(error.error) ? 'String does not match pattern.' : error.error;
  return where === '' ? text : `${where}: ${text}`;
}

/** The JSON Schema draft a schema names in `$schema`; 2020-12 (MCP's default) when it names none. */
function draftOf(schema: Readonly<Record<string, unknown>>): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-07') || declared.includes('draft-06')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * The one input contract of a task, on every path that runs it (the job scheduler behind HTTP,
 * pipelines and MCP, and `loadout tasks run`): `input` (absent: `{}`) must match the schema the task
 * declares; a task without one takes any JSON. Throws {@link TaskRunInputRefusedError} otherwise, so
 * nothing is queued or started.
 */
export function checkTaskInput(schemas: TaskInputSchemas, task: TaskRecord, input: unknown): void {
  if (task.inputSchemaError !== null) throw new TaskRunInputRefusedError(task.dirName, task.inputSchemaError);
  if (task.inputSchema === null) return;
  const check = schemas.prepare(task.inputSchema);
  if ('error' in check) throw new TaskRunInputRefusedError(task.dirName, check.error);
  const problem = check(input === undefined ? {} : input);
  if (problem !== null) throw new TaskRunInputRefusedError(task.dirName, problem);
}

/**
 * A finished run's stdout as the structured output its task declares under `output:`: the JSON
 * object it printed, checked against that schema. Null when the task declares none (its output is
 * text); `problem` says why the output cannot be given as declared (not JSON, not an object, not
 * matching, or a schema that cannot be used), so the caller refuses it rather than pass it on.
 */
export function readStructuredOutput(
  schemas: TaskInputSchemas,
  task: Pick<TaskRecord, 'outputSchema' | 'outputSchemaError'>,
  stdout: string,
): { readonly value: Readonly<Record<string, unknown>> } | { readonly problem: string } | null {
  if (task.outputSchemaError !== null) return { problem: task.outputSchemaError };
  if (task.outputSchema === null) return null;
  const check = schemas.prepare(task.outputSchema, OUTPUT_MISMATCH);
  if ('error' in check) return { problem: check.error };
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return { problem: 'the task declares an output schema, but what it printed is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'the task declares an output schema, but what it printed is not a JSON object' };
  }
  const problem = check(value);
  return problem === null ? { value: value as Record<string, unknown> } : { problem };
}
