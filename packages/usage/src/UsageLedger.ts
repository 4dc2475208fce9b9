import { type CapabilityRecord, Places, SessionLoader, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { ingestSpool, type SpoolIngestReport } from './SpoolIngest.js';
import { UsageQueryInvalidError } from './UsageErrors.js';
import { type UsageListed, type UsageListingSnapshot, UsageListings } from './UsageListings.js';
import { UsageRecorder } from './UsageRecorder.js';
import { usageSpoolDir } from './usageSpoolLine.js';
import { DAY_MS, type UsageKind, UsageStore, type UsageTally } from './UsageStore.js';

/** How long the ledger keeps events (`LOADOUT_KEEP_USAGE_DAYS`); older ones are pruned at each ingest. */
export interface UsageRetention {
  readonly keepDays: number;
}
export const UsageRetention = token<UsageRetention>('usage.retention');
export const DEFAULT_USAGE_RETENTION: UsageRetention = { keepDays: 90 };

/** What `loadout usage` and `GET /api/usage` ask, once parsed. */
export interface UsageQuery {
  /** The window, in days back from now. */
  readonly sinceDays: number;
  readonly runtime: string | null;
  /** The project (any folder inside it), or null for the global level only. */
  readonly project: string | null;
}

/** The kinds a session offers, each with the ledger kind its uses are recorded under. */
const OFFERED_KINDS: readonly { readonly kind: string; readonly ledger: UsageKind }[] = [
  { kind: 'skill', ledger: 'skill' },
  { kind: 'command', ledger: 'command' },
  { kind: 'agent', ledger: 'agent' },
  { kind: 'task', ledger: 'task' },
  { kind: 'server', ledger: 'server' },
];

/** One capability's line in the report: what the session offers, and what the runtimes did with it. */
export interface UsageEntry {
  readonly kind: UsageKind;
  /** The capability id (a task's folder name), or the name a runtime used for what Loadout does not offer. */
  readonly id: string;
  readonly plugin: string | null;
  /** On in this project's session now. */
  readonly offered: boolean;
  /**
   * For a skill, how each runtime whose listing is predicted and that sees the skill lists it in its
   * prompt (described, by name only, not at all: dropped past its budget), as the listing-budget
   * planner computes it now; null for other kinds and where no planner answered.
   */
  readonly listed: readonly UsageListed[] | null;
  readonly invoked: number;
  readonly failed: number;
  /** ISO time of the latest use in the window, or null. */
  readonly lastUsed: string | null;
  /** Distinct sessions it was used in. */
  readonly sessions: number;
  readonly runtimes: readonly { readonly runtime: string; readonly invoked: number; readonly failed: number; readonly lastUsed: string }[];
}

/** What the owner could do about what the ledger shows, with the exact command. */
export interface UsageSuggestion {
  readonly kind: UsageKind;
  readonly id: string;
  readonly reason: 'unused' | 'used-in-most-sessions' | 'listed-by-name-only';
  readonly message: string;
  readonly command: string;
}

/** `loadout usage --json`: the window, what was taken in from the spool, each capability, and suggestions. */
export interface UsageReport {
  readonly since: string;
  readonly project: string | null;
  readonly runtime: string | null;
  readonly retentionDays: number;
  readonly ingested: SpoolIngestReport;
  readonly pruned: number;
  /** Distinct runtime sessions seen in the window (for "used in most sessions"). */
  readonly sessions: number;
  readonly capabilities: readonly UsageEntry[];
  readonly suggestions: readonly UsageSuggestion[];
  /** Why `listed` could not be computed (the plan failed), or null: a finding, never the report's failure. */
  readonly listingProblem: string | null;
}

/** A skill used in more than this share of the window's sessions (and in at least {@link PIN_MIN_SESSIONS}) is worth pinning. */
const PIN_SHARE = 0.5;
const PIN_MIN_SESSIONS = 3;

/** The longest window a report reads. */
export const MAX_USAGE_DAYS = 3650;
const RUNTIME_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

/**
 * Parses `--since` / `?since=`: `30d`, `12h` or a bare number of days.
 *
 * @throws UsageQueryInvalidError for anything else, or a window past {@link MAX_USAGE_DAYS}
 */
export function parseUsageWindow(text: string): number {
  const match = /^(\d{1,5})([dh]?)$/.exec(text.trim());
  const days = match === null ? NaN : Number(match[1]) / (match[2] === 'h' ? 24 : 1);
  if (!(days > 0) || days > MAX_USAGE_DAYS)
    throw new UsageQueryInvalidError(
      `--since takes a window such as 30d or 12h, at most ${MAX_USAGE_DAYS} days; got "${text.slice(0, 40)}"`,
    );
  return days;
}

/**
 * Checks a runtime name a report is narrowed to.
 *
 * @throws UsageQueryInvalidError when it is not a runtime's name
 */
export function parseUsageRuntime(text: string): string {
  if (!RUNTIME_NAME.test(text))
    throw new UsageQueryInvalidError(`--runtime takes a runtime's name such as claude-code; got "${text.slice(0, 70)}"`);
  return text;
}

/**
 * The usage ledger as the owner reads it: takes in the hook spool, prunes by age, and joins what
 * was used with what the project's session offers now.
 *
 * @example
 * const report = await ledger.report({ sinceDays: 30, runtime: null, project: '/work/app' });
 * report.suggestions; // [{ reason: 'unused', command: 'loadout capability set skill/old --disable --project /work/app', … }]
 */
export interface UsageLedger {
  /** Takes in every spool file and prunes what is older than the retention: what the server does on its timer. */
  ingest(): Promise<{ ingested: SpoolIngestReport; pruned: number }>;
  /** The report for `query`, after taking in the spool and what this process recorded. */
  report(query: UsageQuery): Promise<UsageReport>;
}
export const UsageLedger = token<UsageLedger>('usage.ledger');

/** The {@link UsageLedger} over the store, the session loader and the data folder's spool. */
@injectable()
export class StoredUsageLedger implements UsageLedger {
  constructor(
    @inject(UsageStore) private readonly store: UsageStore,
    @inject(UsageRecorder) private readonly recorder: UsageRecorder,
    @inject(SessionLoader) private readonly sessions: SessionLoader,
    @inject(Places) private readonly places: Places,
    @inject(UsageRetention) private readonly retention: UsageRetention,
    @inject(UsageListings) private readonly listings: UsageListings,
  ) {}

  async ingest(): Promise<{ ingested: SpoolIngestReport; pruned: number }> {
    const ingested = await ingestSpool(usageSpoolDir(this.places.dataDir), this.store);
    const pruned = await this.store.prune(Date.now() - this.retention.keepDays * DAY_MS);
    return { ingested, pruned };
  }

  async report(query: UsageQuery): Promise<UsageReport> {
    const project = query.project === null ? null : SessionLoader.resolveProject(query.project);
    await this.recorder.flush();
    const { ingested, pruned } = await this.ingest();
    const since = Date.now() - query.sinceDays * DAY_MS;
    const filter = { since, project, ...(query.runtime === null ? {} : { runtime: query.runtime }) };
    const [tallies, sessionCounts, offered, listings] = await Promise.all([
      this.store.tally(filter),
      this.store.sessionCounts(filter),
      this.offered(project),
      this.listings.listings(project, query.runtime),
    ]);
    const sessions = sessionCounts.reduce((sum, count) => sum + count.sessions, 0);
    const capabilities = joinUsage(offered, tallies, listings);
    return {
      since: new Date(since).toISOString(),
      project,
      runtime: query.runtime,
      retentionDays: this.retention.keepDays,
      ingested,
      pruned,
      sessions,
      capabilities,
      suggestions: suggest(capabilities, { project, sinceDays: query.sinceDays, sessions, anyUse: tallies.length > 0 }),
      listingProblem: listings?.problem ?? null,
    };
  }

  /** What the project's session offers now, per ledger kind. */
  private async offered(project: string | null): Promise<{ kind: UsageKind; record: CapabilityRecord }[]> {
    const session = await this.sessions.open({ project, kinds: OFFERED_KINDS.map((entry) => entry.kind) });
    try {
      return OFFERED_KINDS.flatMap(({ kind, ledger }) => session.recordsOf(kind).map((record) => ({ kind: ledger, record })));
    } finally {
      session.dispose();
    }
  }
}

/** The identity a use is matched on: a task by its folder name, anything else by its id; case never matters. */
function keyOf(kind: UsageKind, name: string): string {
  return `${kind}/${name.toLowerCase()}`;
}

/**
 * Every offered capability with its uses (a skill with how each predicted runtime lists it), then
 * what was used but is not offered (other servers' tools, switched-off ones).
 */
function joinUsage(
  offered: readonly { kind: UsageKind; record: CapabilityRecord }[],
  tallies: readonly UsageTally[],
  listings: UsageListingSnapshot | null,
): UsageEntry[] {
  const byKey = new Map<string, UsageTally[]>();
  for (const tally of tallies) {
    const key = keyOf(tally.kind, tally.name);
    byKey.set(key, [...(byKey.get(key) ?? []), tally]);
  }
  const entries: UsageEntry[] = [];
  for (const { kind, record } of offered) {
    const id = kind === 'task' ? ((record as CapabilityRecord & { dirName?: string }).dirName ?? record.id) : record.id;
    const key = keyOf(kind, id);
    const uses = [
      ...(byKey.get(key) ?? []),
      ...(record.name.toLowerCase() === id.toLowerCase() ? [] : (byKey.get(keyOf(kind, record.name)) ?? [])),
    ];
    byKey.delete(key);
    byKey.delete(keyOf(kind, record.name));
    entries.push(entryOf(kind, id, record.plugin, true, uses, kind === 'skill' ? listedIn(listings, [record.name, id]) : null));
  }
  for (const uses of byKey.values()) {
    const first = uses[0] as UsageTally;
    entries.push(entryOf(first.kind, first.server === null ? first.name : `${first.server}/${first.name}`, null, false, uses, null));
  }
  return entries.sort((a, b) => b.invoked - a.invoked || a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}

/**
 * How each predicted runtime that sees a skill known by any of `names` (the name it is listed
 * under, its id) lists it; a runtime that does not load the skill at all (not installed, the skill
 * off for it) is left out: that is not its listing budget's doing. Null without a planner.
 */
function listedIn(listings: UsageListingSnapshot | null, names: readonly string[]): UsageListed[] | null {
  if (listings === null || listings.problem !== null) return null;
  return listings.runtimes.flatMap(({ runtime, client, skills }) => {
    const status = names.map((name) => skills.get(name.toLowerCase())).find((found) => found !== undefined);
    return status === undefined ? [] : [{ runtime, client, status }];
  });
}

function entryOf(
  kind: UsageKind,
  id: string,
  plugin: string | null,
  offered: boolean,
  uses: readonly UsageTally[],
  listed: UsageListed[] | null,
): UsageEntry {
  const runtimes = new Map<string, { runtime: string; invoked: number; failed: number; lastUsed: number }>();
  for (const use of uses) {
    const seen = runtimes.get(use.runtime) ?? { runtime: use.runtime, invoked: 0, failed: 0, lastUsed: 0 };
    runtimes.set(use.runtime, {
      runtime: use.runtime,
      invoked: seen.invoked + use.invoked,
      failed: seen.failed + use.failed,
      lastUsed: Math.max(seen.lastUsed, use.lastUsed),
    });
  }
  const lastUsed = uses.reduce((latest, use) => Math.max(latest, use.lastUsed), 0);
  return {
    kind,
    id,
    plugin,
    offered,
    listed,
    invoked: uses.reduce((sum, use) => sum + use.invoked, 0),
    failed: uses.reduce((sum, use) => sum + use.failed, 0),
    lastUsed: lastUsed === 0 ? null : new Date(lastUsed).toISOString(),
    sessions: uses.reduce((sum, use) => sum + use.sessions, 0),
    runtimes: [...runtimes.values()].map((runtime) => ({ ...runtime, lastUsed: new Date(runtime.lastUsed).toISOString() })),
  };
}

/**
 * The suggestions: an offered capability unused in the window could be turned off (for the project
 * when the report is for one), once the ledger shows any use at all (an empty ledger proves
 * nothing); a skill used in most sessions could be pinned so it stays described in the listing; a
 * skill a runtime lists by name only and that runtime never used is one the agent cannot choose
 * well: pin it or shorten its description (the planner's verdict needs no use to be true).
 */
function suggest(
  entries: readonly UsageEntry[],
  context: { project: string | null; sinceDays: number; sessions: number; anyUse: boolean },
): UsageSuggestion[] {
  const suggestions: UsageSuggestion[] = [];
  const window = `${Math.round(context.sinceDays * 10) / 10} days`;
  for (const entry of entries) {
    if (entry.offered && entry.invoked === 0 && context.anyUse) {
      const where = context.project === null ? '' : ` --project ${quoted(context.project)}`;
      suggestions.push({
        kind: entry.kind,
        id: entry.id,
        reason: 'unused',
        message: `${entry.kind} ${entry.id}: unused for ${window} — turn off ${context.project === null ? 'everywhere' : 'for this project'}?`,
        command: `loadout capability set ${entry.kind}/${entry.id} --disable${where}`,
      });
    }
    if (entry.kind === 'skill' && entry.sessions >= PIN_MIN_SESSIONS && entry.sessions > context.sessions * PIN_SHARE) {
      suggestions.push({
        kind: entry.kind,
        id: entry.id,
        reason: 'used-in-most-sessions',
        message: `skill ${entry.id}: used in ${entry.sessions} of ${context.sessions} sessions — pin it so it stays described`,
        command: `loadout budget pin ${entry.id}`,
      });
    }
    for (const listed of entry.listed ?? []) {
      if (listed.status !== 'name-only' || entry.runtimes.some((use) => use.runtime === listed.runtime)) continue;
      suggestions.push({
        kind: entry.kind,
        id: entry.id,
        reason: 'listed-by-name-only',
        message: `skill ${entry.id}: ${listedWords(listed)} and never used in ${window} — pin it (\`loadout budget pin ${entry.id}\`) or shorten its description`,
        command: `loadout budget pin ${entry.id}`,
      });
    }
  }
  return suggestions;
}

/** How a runtime lists a skill, in words: `listed by name only in Claude Code`. */
export function listedWords(listed: UsageListed): string {
  const how =
    listed.status === 'described' ? 'listed with its description' : listed.status === 'name-only' ? 'listed by name only' : 'not listed';
  return `${how} in ${listed.client}`;
}

/** A path as a shell word: quoted when it holds anything but plain path characters. */
function quoted(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
