import { InvalidInputError } from '@loadout/files';

/** `loadout usage` or `GET /api/usage` asked with a window, runtime or project that cannot be read: nothing was read or changed. */
export class UsageQueryInvalidError extends InvalidInputError {
  constructor(message: string) {
    super('USAGE_QUERY_INVALID', message);
  }
}
