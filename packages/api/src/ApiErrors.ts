import { InvalidInputError } from '@loadout/files';

/** A request body, query or parameter that does not have the expected shape. */
export class RequestInvalidError extends InvalidInputError {
  constructor(message: string, code = 'REQUEST_INVALID') {
    super(code, message);
  }
}
