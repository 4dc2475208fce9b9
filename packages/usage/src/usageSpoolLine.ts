import path from 'node:path';
import { visibleText } from '@loadout/kernel';
import { z } from 'zod';

/**
 * The folder, inside the data folder, where runtime hooks append usage events: one JSON line per
 * event, in any file whose name ends `.jsonl`. `loadout usage` and the server take the files in.
 */
export const USAGE_SPOOL_FOLDER = path.join('usage', 'spool');

/** The spool folder of the data folder `dataDir`. */
export function usageSpoolDir(dataDir: string): string {
  return path.join(dataDir, USAGE_SPOOL_FOLDER);
}

/** The longest line a hook writes: it appends each line with one write, which stays atomic under this size. */
export const MAX_SPOOL_LINE_BYTES = 4096;
/** Longest name and runtime kept; a longer one is absurd, and the line is dropped. */
export const MAX_USAGE_NAME_CHARS = 256;
/** Longest project path kept. */
export const MAX_USAGE_PROJECT_CHARS = 4096;

const plainText = (max: number, what: string) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max} characters`)
    // A control character (an escape sequence, a line break, a bidirectional override) is never part of a name or a path.
    .refine((text) => visibleText(text) === text, `${what} holds a control character`);

/**
 * One line of the usage spool, version 1: what a runtime hook writes for each event. `project` is
 * the absolute folder the agent worked in, or null; `server` names the MCP server of a `tool`;
 * `session` the runtime's own session id. Extra fields are ignored, so a newer hook's lines stay
 * readable.
 *
 * @example
 * {"v":1,"at":"2026-12-05T14:00:00.000Z","runtime":"claude-code","project":"/work/app","kind":"skill","name":"pdf","event":"invoked","session":"4f1c"}
 */
export const usageSpoolLineSchema = z.object({
  v: z.literal(1),
  at: z.iso.datetime({ offset: true }),
  runtime: plainText(MAX_USAGE_NAME_CHARS, 'runtime'),
  project: plainText(MAX_USAGE_PROJECT_CHARS, 'project')
    .refine((folder) => path.isAbsolute(folder), 'project is not an absolute path')
    .nullable(),
  kind: z.enum(['skill', 'command', 'agent', 'tool', 'server']),
  name: plainText(MAX_USAGE_NAME_CHARS, 'name'),
  server: plainText(MAX_USAGE_NAME_CHARS, 'server').optional(),
  event: z.enum(['invoked', 'failed']),
  session: plainText(MAX_USAGE_NAME_CHARS, 'session').optional(),
});

/** A spool line as the hook writes it. */
export type UsageSpoolLine = z.infer<typeof usageSpoolLineSchema>;
