import path from 'node:path';
import { readJsonInside } from './DocumentReader.js';
import { DocumentRefusedError } from '@loadout/files';

/** The shape check a JSON kind applies: returns the typed value or a one-line reason. */
export type JsonShape<T> = (value: unknown) => { ok: true; value: T } | { ok: false; reason: string };

/**
 * Reads a JSON capability document under `rootDir` and checks its shape. Null when the file does
 * not exist; a `DocumentRefusedError` naming the file when it is not valid.
 */
export function readJsonCapability<T>(rootDir: string, file: string, shape: JsonShape<T>): T | null {
  const raw = readJsonInside(rootDir, file);
  if (raw === null) return null;
  const checked = shape(raw);
  if (!checked.ok) {
    throw new DocumentRefusedError('DOCUMENT_INVALID', `${path.relative(rootDir, file)}: ${checked.reason}`);
  }
  return checked.value;
}
