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

  /** The check for `schema`, or why the schema cannot be used. */
  prepare(schema: Readonly<Record<string, unknown>>): InputCheck | { readonly error: string } {
    const key = JSON.stringify(schema);
    let entry = this.prepared.get(key);
    if (entry === undefined) {
      entry = compile(schema);
      if (this.prepared.size >= 1000) this.prepared.clear();
      this.prepared.set(key, entry);
    }
    return entry;
  }
}

function compile(schema: Readonly<Record<string, unknown>>): InputCheck | { readonly error: string } {
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
    return { error: `its input schema cannot be used: ${(error as Error).message}` };
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
      return `the input schema could not be applied: ${(error as Error).message}`;
    }
    if (result.valid) return null;
    // The deepest messages say what is wrong; the ones above them only repeat "does not match".
    const messages = result.errors
      .filter((error) => !/does not match|not all|failed/i.test(error.error) || isPatternFormat(error.error))
      .map(describe);
    const shown = (messages.length > 0 ? messages : result.errors.map(describe)).slice(0, MAX_MESSAGES);
    return `the arguments do not match the task's input schema: ${shown.join('; ')}`;
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
