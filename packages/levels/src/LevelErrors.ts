import { ConflictError, InvalidInputError, NotFoundError, OperationFailedError } from '@loadout/files';

/** A transfer request that is not `{ kind, id, from, to }` with two well-formed ends. */
export class CapabilityInvalidError extends InvalidInputError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CAPABILITY_INVALID', message, options);
  }
}

/** No owner's document of that kind and id at the source end. */
export class CapabilityNotFoundError extends NotFoundError {
  constructor(message: string) {
    super('CAPABILITY_NOT_FOUND', message);
  }
}

/**
 * The capability is a plugin's. It is read from the plugin's own clone, and the plugin's next
 * update would bring it back, so moving it would only make a copy: refused, naming the plugin.
 */
export class PluginCapabilityImmovableError extends ConflictError {
  constructor(
    readonly plugin: string,
    message: string,
  ) {
    super('CAPABILITY_FROM_PLUGIN', message);
  }
}

/**
 * A document or folder the mover will not touch: a symbolic link (moving the link would break or
 * redirect it) or a destination folder that leads outside its root.
 */
export class TransferRefusedError extends ConflictError {
  constructor(message: string) {
    super('TRANSFER_REFUSED', message);
  }
}

/**
 * The scanner did not list the landed document as the record that was planned (it refused the
 * document, or read another id or name from it). The move was rolled back before any state
 * changed.
 */
export class LandingRefusedError extends ConflictError {
  constructor(message: string) {
    super('TRANSFER_LANDING_REFUSED', message);
  }
}

/** Every suffix up to the limit is taken: nothing can be placed without overwriting. */
export class NoPlacementError extends ConflictError {
  constructor(message: string) {
    super('TRANSFER_NO_PLACEMENT', message);
  }
}

/** The file system or the database failed part-way; the message says what was left where. */
export class TransferFailedError extends OperationFailedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TRANSFER_FAILED', message, options);
  }
}

/** Another transfer held the lock for longer than a transfer waits. */
export class TransferBusyError extends OperationFailedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TRANSFER_BUSY', message, options);
  }
}

/**
 * The capability is held at its source (its project is not trusted) and would not be held where
 * it lands (the owner's own level, or a trusted project): moving it would make it runnable without
 * anyone trusting it. Refused before anything is touched; trusting the source project lifts it.
 */
export class TransferHeldError extends ConflictError {
  constructor(message: string) {
    super('TRANSFER_HELD', message);
  }
}
