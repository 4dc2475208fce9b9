import path from 'node:path';
import { readJsonInside, zodShape } from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import type { z } from 'zod';
import { RuntimeManifestInvalidError } from './RuntimeErrors.js';

/**
 * The JSON of one of the files in which Loadout records what it wrote into runtimes (a root's
 * manifest, the MCP and documents manifests, Claude Code's plugin registrations); null when there
 * is none. A file that cannot be read inside `dir` is `RuntimeManifestInvalidError`, naming it.
 */
export function readRecordJson(dir: string, fileName: string): unknown {
  try {
    return readJsonInside(dir, path.join(dir, fileName));
  } catch (error) {
    if (error instanceof DocumentRefusedError) {
      throw new RuntimeManifestInvalidError(`${fileName} is unreadable (${error.code}); fix or remove it`, { cause: error });
    }
    throw error;
  }
}

/** {@link readRecordJson}, checked against `schema`: a file of another shape is `RuntimeManifestInvalidError`. */
export function readRecordFile<T>(dir: string, fileName: string, schema: z.ZodType<T>): T | null {
  const raw = readRecordJson(dir, fileName);
  return raw === null ? null : checkRecordShape(fileName, schema, raw);
}

/** `raw`, read from `fileName`, as `schema` has it. */
export function checkRecordShape<T>(fileName: string, schema: z.ZodType<T>, raw: unknown): T {
  const parsed = zodShape(schema)(raw);
  if (!parsed.ok)
    throw new RuntimeManifestInvalidError(`${fileName} does not have the expected shape (${parsed.reason}); fix or remove it`);
  return parsed.value;
}
