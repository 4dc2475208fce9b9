import { InvalidInputError, OperationFailedError } from '@loadout/kernel';

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
