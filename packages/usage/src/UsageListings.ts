import { token } from '@loadout/kernel';

/** How a runtime's prompt lists a skill it sees: with its description, by its name only, or not at all (dropped past its budget). */
export type UsageListedStatus = 'described' | 'name-only' | 'not-listed';

/** One runtime's listing of one skill, as the listing-budget planner computes it. */
export interface UsageListed {
  /** The runtime's name (`claude-code`), as the ledger names runtimes. */
  readonly runtime: string;
  /** Its client's name for people (`Claude Code`). */
  readonly client: string;
  readonly status: UsageListedStatus;
}

/** Per runtime whose listing is predicted: how it lists each skill it sees, by the name it lists it under. */
export interface UsageListingSnapshot {
  readonly runtimes: readonly {
    readonly runtime: string;
    readonly client: string;
    /** Skill name as listed, lowercased → its status there; a skill it does not see is absent. */
    readonly skills: ReadonlyMap<string, UsageListedStatus>;
  }[];
  /** Why no listing could be planned (the plan failed): a finding for the report, never its failure. */
  readonly problem: string | null;
}

/**
 * Where the ledger asks what each runtime's prompt lists, for the report's `listed`: the
 * listing-budget planner (package `runtimes`) answers; without it the report's `listed` stays null.
 * Asked when the report is asked, never recorded: the listing changes with every skill's
 * description, pin and switch, and the ledger keeps uses only.
 */
export interface UsageListings {
  /**
   * The listing of `runtime` (every runtime whose listing rules are measured when null) for
   * `project`'s session; null when no planner is loaded. Never throws: a plan that fails is the
   * snapshot's `problem`.
   */
  listings(project: string | null, runtime: string | null): Promise<UsageListingSnapshot | null>;
}
export const UsageListings = token<UsageListings>('usage.listings');

/** The answer while no listing-budget planner is loaded: `listed` stays null. */
export const NO_USAGE_LISTINGS: UsageListings = { listings: () => Promise.resolve(null) };
