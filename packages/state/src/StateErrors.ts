import { InvalidInputError, OperationFailedError } from '@loadout/files';

/**
 * A `config.json` whose gates cannot be read as data. Refused rather than half-read: a gate read
 * as its default would be a capability doing what the owner turned off.
 */
export class GateConfigInvalidError extends InvalidInputError {
  constructor(
    readonly file: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('STATE_CONFIG_INVALID', `${file}: ${reason}`, options);
  }
}

/**
 * A `config.json` the file system would not let Loadout read (permissions, an I/O error): not a
 * broken file, so kept apart from {@link GateConfigInvalidError}; `cause` is the file system's error.
 */
export class GateConfigUnreadableError extends OperationFailedError {
  constructor(
    readonly file: string,
    options: { cause: unknown },
  ) {
    const reason =
      (options.cause as NodeJS.ErrnoException).code ?? (options.cause instanceof Error ? options.cause.message : String(options.cause));
    super('STATE_CONFIG_UNREADABLE', `${file} cannot be read (${reason})`, options);
  }
}

/**
 * One desired state the writer refused before writing anything. `code` says why:
 * `STATE_KIND_UNKNOWN`, `STATE_CAPABILITY_UNKNOWN`, `STATE_GATE_UNDECLARED`, `STATE_VALUE_INVALID`
 * (not on/off), `STATE_REQUEST_CONFLICT` (one request asks for both), `STATE_PLUGIN_NOT_INSTALLED`
 * or `STATE_PLUGIN_DISABLED` (below the install floor).
 */
export class StateRequestRefusedError extends InvalidInputError {}

/** The state read back after a write is not what was asked (`STATE_DIVERGED`). */
export class StateDivergedError extends OperationFailedError {
  constructor(message: string) {
    super('STATE_DIVERGED', message);
  }
}

/**
 * The write itself failed for a reason that is not a Loadout error (the file system, the
 * database): `STATE_WRITE_FAILED`, with that error as its `cause`. A Loadout error (a locked or
 * broken `config.json` …) is reported as itself, code and cause kept.
 */
export class StateWriteFailedError extends OperationFailedError {
  constructor(cause: unknown) {
    super('STATE_WRITE_FAILED', `the write did not complete: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Another process held a `config.json`'s lock for longer than a writer waits. */
export class GateConfigLockedError extends OperationFailedError {
  constructor(
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super('STATE_CONFIG_LOCKED', `${file} is being written by another process; try again`, options);
  }
}

/** A desired-state request that is not a list of `{ kind, id, enabled?, gates? }`. */
export class DesiredStateInvalidError extends InvalidInputError {
  constructor(message: string) {
    super('STATE_INPUT_INVALID', message);
  }
}
