/**
 * How one agent client lists skills in its prompt: the budget, the cap on one entry, the order and
 * what it cuts first once the list is over budget. Kept as data in each runtime's adapter, per client
 * version, with where each fact was read, so `loadout budget` can show the exact listing and a new
 * client version comes with its own measured rules.
 */
export type ListingRules = ObservedListingRules | UnobservedListingRules;

/** A runtime whose listing Loadout has not measured: the planner says so instead of guessing. */
export interface UnobservedListingRules {
  readonly observed: false;
  /** Why, in a sentence: what would have to be asked and why it could not be. */
  readonly why: string;
}

/** The rules shared by every client whose listing was measured. */
interface ListingRulesBase {
  readonly observed: true;
  /** The client's name for people, e.g. `Claude Code`. */
  readonly client: string;
  /** The client version the rules were read from, e.g. `0.171.0`. */
  readonly clientVersion: string;
  /** The date they were read, `YYYY-MM-DD`. */
  readonly observedOn: string;
  /** Where they come from: the client's code or files, its debug output, its documentation. */
  readonly sources: readonly string[];
  /** What of the client's listing could not be observed offline, and why; absent when all of it was. */
  readonly notObserved?: string;
}

/**
 * Claude Code: every skill is `- name: description` (its `when_to_use` joined with ` - `), one
 * entry capped at `entryCap` characters; over budget, its own bundled skills keep their
 * descriptions, the others are ranked by recent use and described while what is left allows,
 * the rest listed by bare name (`- name`).
 */
export interface RankedListingRules extends ListingRulesBase {
  readonly kind: 'ranked-by-use';
  /** The budget in characters of the whole list (entries joined by line breaks). */
  readonly budgetChars: number;
  /** How the budget is derived, for people, e.g. `1% of the context window × 4 characters a token`. */
  readonly budgetRule: string;
  /** The longest description (with `when_to_use`) an entry carries; longer ones end in `…`. */
  readonly entryCap: number;
  /** The client's own entries (bundled skills), which always keep their description: their count and characters, measured. */
  readonly builtIns: { readonly entries: number; readonly chars: number };
}

/**
 * Codex: `- name: description (file: path)` per skill, system skills first, then by scope and name.
 * Over budget, descriptions are shortened character by character across all skills (short ones
 * keep theirs whole); when even bare entries do not fit, the skills past the budget are dropped.
 */
export interface SharedListingRules extends ListingRulesBase {
  readonly kind: 'shortened-evenly';
  /** Percent of the model's context window (in tokens of `bytesPerToken` bytes) when it is known. */
  readonly contextWindowPercent: number;
  readonly bytesPerToken: number;
  /** The budget in characters when the context window is not known. */
  readonly fallbackChars: number;
  /** The context window Loadout plans with when none is configured (the client's default model's). */
  readonly defaultContextWindow: number | null;
  /** The longest description kept before any budget: longer ones are cut to `entryCap - 3` and end in `...`. */
  readonly entryCap: number;
}

export type ObservedListingRules = RankedListingRules | SharedListingRules;
