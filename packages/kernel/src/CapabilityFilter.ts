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

/** What a filter keeps, and what it has to say about what it left out. */
export interface FilterResult {
  readonly records: readonly CapabilityRecord[];
  readonly diagnostics: readonly Diagnostic[];
}

/** One session's filter: called with the records the session reads, and again by `Session.isOn`. */
export type SessionFilter = (records: readonly CapabilityRecord[]) => FilterResult;

/**
 * Decides which of the session's capabilities are on. A capability a filter drops is not in the
 * session at all: not listed, not in any block, not found by lookups. What the filter needs is
 * read once, when the session opens (it may live in a database other servers share), into the
 * session's own synchronous filter.
 *
 * @example
 * const hideDrafts: CapabilityFilter = {
 *   forSession: () => (records) => ({ records: records.filter((r) => !r.id.startsWith('draft-')), diagnostics: [] }),
 * };
 */
export interface CapabilityFilter {
  forSession(scope: SessionScope): SessionFilter | Promise<SessionFilter>;
}
export const CapabilityFilters = token<CapabilityFilter>('kernel.capabilityFilters');
