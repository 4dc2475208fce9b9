import { LoadoutError } from '@loadout/files';

/** The container is missing a registration: a programming error, reported with what was missing. */
export class WiringError extends LoadoutError {
  readonly code = 'WIRING';
  readonly category = 'failed' as const;
}
