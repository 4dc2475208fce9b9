import path from 'node:path';
import { collisionKey, parseSwitch, readTextInside } from '@loadout/kernel';
import { DocumentRefusedError, editJsonText, type FileLockRetries, isLoadoutError, type JsonTextEdit, withFileLock } from '@loadout/files';
import { GateConfigInvalidError, GateConfigLockedError, GateConfigUnreadableError } from './StateErrors.js';

/** The file, directly in a root, that holds configured gates. */
export const CONFIG_FILE = 'config.json';

/** One root's configured gates, read from its `config.json`. */
export interface GateConfig {
  /** Absolute path of the file (it may not exist). */
  readonly file: string;
  /** Whether the file exists. */
  readonly exists: boolean;
  /** The text it was read from; null when there is no file. Two readings of the same text configure the same. */
  readonly text: string | null;
  /** The configured value of a gate, undefined when the file does not set it. */
  configured(kind: string, id: string, gate: string): boolean | undefined;
}

/** A gate value to write under `gates["<kind>/<id>"][gate]`. */
export interface GateChange {
  readonly kind: string;
  readonly id: string;
  /** The gate's name as the document declares it. */
  readonly gate: string;
  readonly value: boolean;
}

/** The key a capability's gates live under in `config.json`. */
export function gateKey(kind: string, id: string): string {
  return `${kind}/${collisionKey(id)}`;
}

/**
 * Reads `<rootDir>/config.json`. A missing file configures nothing; a file that is not a JSON
 * object, or whose `gates` are not `{ "<kind>/<id>": { name: on|off } }`, is refused with an
 * error naming it rather than half-read, because a gate misread as its default is a capability
 * silently doing what the owner turned off.
 */
export function readGateConfig(rootDir: string): GateConfig {
  const file = path.join(rootDir, CONFIG_FILE);
  const text = readConfigText(rootDir, file);
  const gates = text === null ? new Map<string, Map<string, boolean>>() : parseGates(parseConfigObject(text, file), file);
  return {
    file,
    exists: text !== null,
    text,
    configured: (kind, id, gate) => gates.get(gateKey(kind, id))?.get(gate.toLowerCase()),
  };
}

/**
 * Applies `changes` to the text of a `config.json` (null: no file yet) and returns the new text.
 * Every byte outside the edited values stays as it was (`editJsonText`): other keys, other
 * capabilities' gates, the file's indentation. A capability's existing entry is updated under the
 * key it already has (even when a hand edit spelled the id in another case), so one capability
 * never gets two entries.
 */
export function applyGateChanges(text: string | null, changes: readonly GateChange[], file: string): string {
  const config = text === null ? {} : parseConfigObject(text, file);
  parseGates(config, file);
  // What the file holds, kept up to date edit by edit, so two changes of one capability find one key.
  const gates = structuredClone((config.gates ?? {}) as Record<string, Record<string, unknown>>);
  const edits: JsonTextEdit[] = [];
  for (const change of changes) {
    const wanted = gateKey(change.kind, change.id);
    const key = Object.keys(gates).find((candidate) => collisionKey(candidate) === wanted) ?? wanted;
    const entry = (gates[key] ??= {});
    for (const existing of Object.keys(entry)) {
      if (existing !== change.gate && existing.toLowerCase() === change.gate.toLowerCase()) {
        delete entry[existing];
        edits.push({ path: ['gates', key, existing], value: undefined });
      }
    }
    entry[change.gate] = change.value;
    edits.push({ path: ['gates', key, change.gate], value: change.value });
  }
  const edited = editJsonText(text, edits);
  if (edited === null)
    throw new GateConfigInvalidError(file, 'cannot take the gates without changing other settings (a key written twice?); edit it by hand');
  return edited;
}

/** A gate writer waits up to a few seconds for another; a lock left by a killed one goes stale after 15 s. */
const CONFIG_LOCK_RETRIES: FileLockRetries = { retries: 60, factor: 1.3, minTimeout: 20, maxTimeout: 250, randomize: true };
const CONFIG_LOCK_STALE = 15_000;

/**
 * Runs `work` holding the inter-process lock of `file` (a `<file>.lock` folder beside it), so two
 * processes writing gates to one `config.json` never lose each other's update: each reads the
 * file inside the lock. Waits up to a few seconds for another writer, then refuses; a lock lost
 * while `work` ran is refused too, after it.
 */
export function withConfigLock<T>(file: string, work: () => T): Promise<T> {
  return withFileLock(file, work, {
    stale: CONFIG_LOCK_STALE,
    retries: CONFIG_LOCK_RETRIES,
    lockError: (error) => new GateConfigLockedError(file, { cause: error }),
  });
}

/**
 * Reads the current `<rootDir>/config.json` and returns the text it should hold after `changes`,
 * for the caller to write with the kernel's one atomic write while it holds the lock.
 */
export function planGateRewrite(rootDir: string, changes: readonly GateChange[]): { file: string; text: string } {
  const file = path.join(rootDir, CONFIG_FILE);
  return { file, text: applyGateChanges(readConfigText(rootDir, file), changes, file) };
}

/**
 * The text of a root's `config.json`, null when there is none. Something that is not a regular
 * file in its place (a folder, a FIFO), a link out of the root or a file over the size limit is
 * `STATE_CONFIG_INVALID`; one the file system will not read is `STATE_CONFIG_UNREADABLE`.
 */
function readConfigText(rootDir: string, file: string): string | null {
  try {
    return readTextInside(rootDir, file);
  } catch (error) {
    if (error instanceof DocumentRefusedError)
      throw new GateConfigInvalidError(file, error.message.replace(/^[^:]*: /, ''), { cause: error });
    if (isLoadoutError(error)) throw error;
    throw new GateConfigUnreadableError(file, { cause: error });
  }
}

function parseConfigObject(text: string, file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GateConfigInvalidError(file, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GateConfigInvalidError(file, 'must hold a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function parseGates(config: Record<string, unknown>, file: string): Map<string, Map<string, boolean>> {
  const result = new Map<string, Map<string, boolean>>();
  const gates = config.gates;
  if (gates === undefined) return result;
  if (gates === null || typeof gates !== 'object' || Array.isArray(gates)) {
    throw new GateConfigInvalidError(file, '"gates" must map "<kind>/<id>" to { gate: on|off }');
  }
  for (const [key, entry] of Object.entries(gates)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new GateConfigInvalidError(file, `gates["${key.slice(0, 100)}"] must map gate names to on/off`);
    }
    const normalized = collisionKey(key);
    // A key spelled exactly in lower case wins over a hand-written variant of it.
    if (result.has(normalized) && key !== normalized) continue;
    const values = new Map<string, boolean>();
    for (const [gate, raw] of Object.entries(entry)) {
      const value = parseSwitch(raw);
      if (value === null) {
        throw new GateConfigInvalidError(file, `gates["${key.slice(0, 100)}"].${gate.slice(0, 64)} must be on or off`);
      }
      values.set(gate.toLowerCase(), value);
    }
    result.set(normalized, values);
  }
  return result;
}
