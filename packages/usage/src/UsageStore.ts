import { token } from '@loadout/kernel';

/** The kinds of capability the ledger counts: Loadout's own kinds, and tools and servers a runtime calls. */
export const USAGE_KINDS = ['skill', 'command', 'agent', 'task', 'tool', 'server'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

/** What happened: a use, or a use that failed (a failed use is counted as invoked too). */
export type UsageEventType = 'invoked' | 'failed';

/** Where an event came from: what Loadout served itself, or a runtime's hook through the spool. */
export type UsageSource = 'served' | 'hook';

/** One use of one capability, as recorded. */
export interface UsageEvent {
  /** Epoch milliseconds. */
  readonly at: number;
  /** The runtime that used it (`claude-code`, `codex`, or an MCP client's own name). */
  readonly runtime: string;
  /** The project's real path, or null for the global level only. */
  readonly project: string | null;
  readonly kind: UsageKind;
  readonly name: string;
  /** For a tool: the MCP server that offers it; null otherwise. */
  readonly server: string | null;
  readonly event: UsageEventType;
  /** The runtime's session (or the MCP connection), when known: what "used in most sessions" counts. */
  readonly session: string | null;
  readonly source: UsageSource;
}

/** Which events a summary covers: those at or after `since`, of one runtime and project when given. */
export interface UsageFilter {
  readonly since: number;
  readonly runtime?: string;
  /** A project's real path; `null` means the global level only; absent means every project. */
  readonly project?: string | null;
  /** One kind only; absent means every kind. */
  readonly kind?: UsageKind;
  /** Any of these runtimes (besides `runtime` when both are given); absent means every runtime. */
  readonly runtimes?: readonly string[];
}

/** The ledger's line for one capability of one runtime and project. */
export interface UsageTally {
  readonly runtime: string;
  readonly project: string | null;
  readonly kind: UsageKind;
  readonly name: string;
  readonly server: string | null;
  /** Every use, failed ones included. */
  readonly invoked: number;
  readonly failed: number;
  /** Epoch milliseconds of the latest use. */
  readonly lastUsed: number;
  /** In how many distinct known sessions it was used. */
  readonly sessions: number;
}

/** How many distinct sessions each runtime and project had in a filter's window: what "most sessions" is measured against. */
export interface SessionCount {
  readonly runtime: string;
  readonly project: string | null;
  readonly sessions: number;
}

/**
 * The ledger's table: every use recorded, summed on demand, pruned by age. Local to the owner (the
 * SQLite file, or the PostgreSQL database the owner named): nothing is sent anywhere. Each method
 * is one statement or one transaction.
 *
 * @example
 * await store.record([{ at: Date.now(), runtime: 'codex', project: null, kind: 'skill', name: 'pdf',
 *   server: null, event: 'invoked', session: 's1', source: 'served' }]);
 * await store.tally({ since: Date.now() - 30 * DAY_MS }); // [{ name: 'pdf', invoked: 1, … }]
 */
export interface UsageStore {
  /** Stores every event in one transaction: all or none. */
  record(events: readonly UsageEvent[]): Promise<void>;
  /** One line per runtime, project and capability used within `filter`, most used first. */
  tally(filter: UsageFilter): Promise<UsageTally[]>;
  /** The distinct sessions per runtime and project within `filter`. */
  sessionCounts(filter: UsageFilter): Promise<SessionCount[]>;
  /** Forgets every event older than `before` (epoch ms); returns how many went. */
  prune(before: number): Promise<number>;
}
export const UsageStore = token<UsageStore>('usage.store');

/** A day in milliseconds: the ledger's windows and retention are counted in days. */
export const DAY_MS = 24 * 60 * 60 * 1000;
