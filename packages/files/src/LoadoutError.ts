/**
 * How a refusal should be reported. The CLI and the HTTP server each map a category to an exit
 * status or an HTTP status in one place; an error class only says which category it belongs to.
 */
export type ErrorCategory =
  | 'invalid' // bad input: exit 1 / HTTP 400
  | 'not_found' // exit 1 / HTTP 404
  | 'conflict' // refused by a rule, e.g. a plugin's task: exit 1 / HTTP 409
  | 'unauthorized' // HTTP 401
  | 'forbidden' // HTTP 403
  | 'failed' // the operation was attempted and did not succeed: exit 1 / HTTP 500
  | 'unavailable'; // a service it needs cannot answer now, or is busy; ask again later: exit 1 / HTTP 503

/**
 * Base of every error Loadout reports on purpose. `code` is stable and meant for tools;
 * `message` is one line meant for people.
 */
export abstract class LoadoutError extends Error {
  abstract readonly code: string;
  abstract readonly category: ErrorCategory;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  toJSON(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** A LoadoutError whose code is given where it is raised, for the four everyday categories. */
abstract class CodedError extends LoadoutError {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Input that fails validation at a boundary. */
export class InvalidInputError extends CodedError {
  readonly category = 'invalid' as const;
}

/** Something named by the caller does not exist. */
export class NotFoundError extends CodedError {
  readonly category = 'not_found' as const;
}

/** A well-formed request that a rule refuses. */
export class ConflictError extends CodedError {
  readonly category = 'conflict' as const;
}

/** An operation that was attempted and failed for a reason outside the caller's input. */
export class OperationFailedError extends CodedError {
  readonly category = 'failed' as const;
}

/** A service the work needs cannot answer now (unreachable, or busy past its bound): asking again later may succeed. */
export class ServiceUnavailableError extends CodedError {
  readonly category = 'unavailable' as const;
}

/** Narrows an unknown thrown value. */
export function isLoadoutError(error: unknown): error is LoadoutError {
  return error instanceof LoadoutError;
}
