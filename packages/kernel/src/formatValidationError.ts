import { z } from 'zod';

/** How many issues one message names; the rest are counted. */
const MAX_SHOWN_ISSUES = 3;

/**
 * The one way a zod validation error becomes the line a refusal carries: `z.prettifyError`'s text
 * (each issue as `✖ message`, then `→ at path` when it has a path, shortest path first) folded onto
 * one line, because Loadout's messages are one line wherever they are shown. At most three issues
 * are spelled out; any more are counted, so a list of a thousand bad entries stays readable.
 *
 * @example
 * formatValidationError(z.object({ id: z.string() }).safeParse({}).error as z.ZodError)
 * // '✖ Invalid input: expected string, received undefined → at id'
 */
export function formatValidationError(error: z.ZodError): string {
  const byPathLength = [...error.issues].sort((a, b) => a.path.length - b.path.length);
  const shown = byPathLength.slice(0, MAX_SHOWN_ISSUES);
  const text = z
    .prettifyError(new z.ZodError(shown))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
  const more = error.issues.length - shown.length;
  return more > 0 ? `${text} (and ${more} more)` : text;
}
