import type { z } from 'zod';
import { formatValidationError } from './formatValidationError.js';
import type { JsonShape } from './readJsonCapability.js';

/**
 * Adapts a zod schema to a {@link JsonShape}; a mismatch's reason is {@link formatValidationError}'s
 * line. A value the schema's own checks throw on (zod compares the `length` of an object that is
 * not a string, e.g. `{"name": {"length": {"toString": 0}}}`) is a mismatch too, not a crash.
 */
export function zodShape<T>(schema: z.ZodType<T>): JsonShape<T> {
  return (value) => {
    let parsed: ReturnType<typeof schema.safeParse>;
    try {
      parsed = schema.safeParse(value);
    } catch (error) {
      return { ok: false, reason: `✖ not the expected shape (${error instanceof Error ? error.message : String(error)})` };
    }
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: formatValidationError(parsed.error) };
  };
}

/**
 * A {@link JsonShape} that asks a hand check first and the zod schema only when the hand check
 * cannot tell. `plain` returns the value exactly as the schema would build it for a document that
 * is plainly valid, and null for anything else; the schema is built on the first such document and
 * judges it, with its own error. A session reads every document of a JSON kind, and building a
 * schema and walking it cost a one-shot command more than the reading; each `plain` has a test
 * that whatever it accepts the schema accepts, to the same value.
 */
export function plainFirstShape<T>(plain: (value: unknown) => T | null, buildSchema: () => z.ZodType<T>): JsonShape<T> {
  let schemaShape: JsonShape<T> | undefined;
  return (value) => {
    const checked = plain(value);
    if (checked !== null) return { ok: true, value: checked };
    schemaShape ??= zodShape(buildSchema());
    return schemaShape(value);
  };
}
