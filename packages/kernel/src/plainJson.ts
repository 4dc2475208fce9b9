/**
 * Pieces of the hand-written shape checks that answer before a zod schema (see `plainFirstShape`).
 * They judge values as `JSON.parse` makes them: on those each accepts only what the matching zod
 * rule surely accepts, so a document they pass needs no schema, and anything else goes to the
 * schema, which gives its own error.
 */

/** An object as `JSON.parse` makes one: anything of type object but an array or null (a Map or a class instance passes too). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A string of `min` to `max` characters as zod 4 counts them (code points). A string of at most
 * `max` UTF-16 units has at most `max` code points; one over that is left to the schema, which
 * counts. The minimum is counted in code points whenever units alone cannot tell.
 */
export function isTextWithin(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string' || value.length > max || value.length < min) return false;
  return value.length >= min * 2 || codePoints(value) >= min;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
