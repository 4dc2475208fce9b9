import type { CapabilityRecord } from './CapabilityKind.js';
import type { Diagnostic } from './Diagnostic.js';
import type { RootList } from './Root.js';
import { token } from './token.js';

/** What a filter knows about the session being opened. */
export interface SessionScope {
  /** The project's real path, or null for a session without a project. */
  readonly project: string | null;
  readonly roots: RootList;
}

/**
 * Decides which of the session's capabilities are on. A capability a filter drops is not in the
 * session at all: not listed, not in any block, not found by lookups.
 */
export interface CapabilityFilter {
  apply(
    scope: SessionScope,
    records: readonly CapabilityRecord[],
  ): { records: readonly CapabilityRecord[]; diagnostics: readonly Diagnostic[] };
}
export const CapabilityFilters = token<CapabilityFilter>('kernel.capabilityFilters');
