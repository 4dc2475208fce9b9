import { ConflictError, LoadoutError, OperationFailedError } from '@loadout/files';

/** A request that needs the server token and did not carry the right one. */
export class TokenRequiredError extends LoadoutError {
  readonly code = 'TOKEN_REQUIRED';
  readonly category = 'unauthorized' as const;
}

/**
 * A request whose `Host` or `Origin` is not this server: another web site (cross-site request) or
 * a DNS name rebound to the loopback address. Refused before anything is read or changed.
 */
export class ForeignOriginError extends LoadoutError {
  readonly category = 'forbidden' as const;
  constructor(
    readonly code: 'HOST_REFUSED' | 'ORIGIN_REFUSED',
    message: string,
  ) {
    super(message);
  }
}

/** Only one server may own a data folder: two would both claim and recover the same jobs. */
export class ServerAlreadyRunningError extends ConflictError {
  constructor(dataDir: string) {
    super('SERVER_ALREADY_RUNNING', `another Loadout server is already running on the data folder ${dataDir}`);
  }
}

/** The server could not start: the port is taken, the data folder cannot be locked, and so on. */
export class ServerStartError extends OperationFailedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVER_START_FAILED', message, options);
  }
}
