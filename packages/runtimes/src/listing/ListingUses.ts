import { token } from '@loadout/kernel';
import type { UsageStore } from '@loadout/usage';

/** When each skill was last used, per runtime: what a client that ranks its listing by recent use ranks with. */
export interface ListingUses {
  /** Runtime name → skill name as used → latest use (ms since the epoch). */
  readonly byRuntime: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /**
   * Why the ledger could not be read, or null. A finding for the report: the listing is then
   * planned as if nothing was used, and neither `budget` nor `apply` fails over it.
   */
  readonly problem: string | null;
}

/** No use known: the listing keeps the client's own order among skills it has no use for. */
export const NO_LISTING_USES: ListingUses = { byRuntime: new Map(), problem: null };

/**
 * Reads the usage ledger for the listing-budget planner. Asked only by what shows a listing
 * (`loadout budget`, `apply --dry-run`, `why`, the ledger's own report): a session open and a real
 * `apply` never read it.
 */
export interface ListingUseReader {
  /** The last use of every skill by each of `runtimes`; never throws. */
  read(runtimes: readonly string[]): Promise<ListingUses>;
}
export const ListingUseReader = token<ListingUseReader>('runtimes.listingUseReader');

/**
 * The {@link ListingUseReader} over the ledger's store, when the usage module is loaded (`store`
 * answers null otherwise). A runtime's uses count in every project: Claude Code keeps its record of
 * skill use per user, not per project, and ranks every project's listing with it. Hook events not
 * yet taken in from the spool are not read here (`loadout usage` and the server take them in).
 */
export class LedgerListingUseReader implements ListingUseReader {
  constructor(private readonly store: () => UsageStore | null) {}

  async read(runtimes: readonly string[]): Promise<ListingUses> {
    if (runtimes.length === 0) return NO_LISTING_USES;
    let store: UsageStore | null;
    try {
      store = this.store();
      if (store === null) return NO_LISTING_USES;
      const tallies = await store.tally({ since: 0, kind: 'skill', runtimes });
      const byRuntime = new Map<string, Map<string, number>>();
      for (const tally of tallies) {
        const uses = byRuntime.get(tally.runtime) ?? new Map<string, number>();
        uses.set(tally.name, Math.max(uses.get(tally.name) ?? 0, tally.lastUsed));
        byRuntime.set(tally.runtime, uses);
      }
      return { byRuntime, problem: null };
    } catch (error) {
      return {
        byRuntime: new Map(),
        problem: `the usage ledger could not be read (${(error as Error).message}); listed as if no skill was used`,
      };
    }
  }
}
