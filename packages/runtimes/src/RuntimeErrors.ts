import { ConflictError, InvalidInputError, NotFoundError } from '@loadout/files';

/** A runtime name no adapter answers to. */
export class RuntimeUnknownError extends InvalidInputError {
  constructor(name: string, known: readonly string[]) {
    super('RUNTIME_UNKNOWN', `unknown runtime "${name.slice(0, 64)}"; known: ${known.join(', ')}`);
  }
}

/** A folder changed between planning and writing; the run stopped and the next one reconciles. */
export class RuntimeChangedDuringApplyError extends ConflictError {
  constructor(message: string) {
    super('RUNTIME_CHANGED_DURING_APPLY', message);
  }
}

/** No trash entry has that id. */
export class TrashEntryNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('TRASH_ENTRY_NOT_FOUND', `no retired skill "${id.slice(0, 100)}" in the trash; run \`loadout apply restore\` to list them`);
  }
}

/** A trash entry whose `entry.json` cannot be used: it is listed with its problem, never restored blindly. */
export class TrashEntryDamagedError extends ConflictError {
  constructor(id: string, problem: string) {
    super('TRASH_ENTRY_DAMAGED', `the trash entry "${id.slice(0, 100)}" is damaged: ${problem}; its files are kept as they are`);
  }
}

/** Something sits where a retired skill would be restored; restoring never overwrites. */
export class RestoreOccupiedError extends ConflictError {
  constructor(where: string) {
    super('RESTORE_OCCUPIED', `${where} already exists; move it away first, restoring never overwrites`);
  }
}

/** A manifest Loadout cannot trust: nothing in that root is treated as managed until it is fixed. */
export class RuntimeManifestInvalidError extends ConflictError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RUNTIME_MANIFEST_INVALID', message, options);
  }
}

/** Loadout's own settings file for this machine cannot be read as it must be: nothing is changed in it. */
export class RuntimeConfigInvalidError extends ConflictError {
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super('RUNTIME_CONFIG_INVALID', `${file}: ${problem}`, options);
  }
}

/** The usage hook asked for a runtime Loadout writes no hooks into. */
export class RuntimeUsageHookUnsupportedError extends InvalidInputError {
  constructor(runtime: string, reason: string) {
    super('USAGE_HOOK_UNSUPPORTED', `the usage hook cannot be written into ${runtime}: ${reason}`);
  }
}
