import type { RankedListingRules, SharedListingRules, UnobservedListingRules } from '../listing/ListingRules.js';

/**
 * Claude Code 2.1.197's skill listing, read from its code (the listing builder in `cli.js` inside
 * the pinned binary) and its debug log on a fresh home: the budget is
 * `SLASH_COMMAND_TOOL_CHAR_BUDGET` when set, else the context window × 4 characters a token × 1 %;
 * the default model's gives 30,000 characters (`Skill listing over budget: … > 30000 budget`). The
 * 13 bundled skills it lists with their descriptions cost 4,439 characters (the same log's total less
 * the 400 skills of the fixture).
 */
export const CLAUDE_CODE_LISTING: RankedListingRules = {
  observed: true,
  kind: 'ranked-by-use',
  client: 'Claude Code',
  clientVersion: '2.1.197',
  observedOn: '2026-12-05',
  sources: [
    'https://code.claude.com/docs/en/skills',
    '@anthropic-ai/claude-code 2.1.197: listing code in the binary; debug log "Skill listing over budget" (packages/e2e/test/runtimes/listingBudget.test.ts)',
  ],
  budgetChars: 30_000,
  budgetRule: '1% of the context window × 4 characters a token (SLASH_COMMAND_TOOL_CHAR_BUDGET overrides)',
  entryCap: 1_536,
  builtIns: { entries: 13, chars: 4_439 },
  notObserved:
    'the order and cut themselves: Claude Code sends its listing only inside a model request, so offline only its debug log can be read (skills counted, characters wanted, the budget); the order it ranks by (recent use) is its own record, not on disk',
};

/**
 * Codex 0.171.0's skill listing, read from `codex debug prompt-input` (which prints the
 * model-visible list without calling a model): 2 % of the model's context window in tokens of four
 * bytes (each line with its line break, rounded up), 8,000 characters when the window is unknown;
 * descriptions longer than 1,024 characters are cut to 1,021 and `...` first. Its default model's
 * window plans as 500,000 tokens (10,000 for skills), measured on a fresh home; `model_context_window`
 * in `config.toml` changes it.
 */
export const CODEX_LISTING: SharedListingRules = {
  observed: true,
  kind: 'shortened-evenly',
  client: 'Codex',
  clientVersion: '0.171.0',
  observedOn: '2026-12-05',
  sources: [
    'https://developers.openai.com/codex/skills',
    '@openai/codex 0.171.0: `codex debug prompt-input` compared entry by entry (packages/e2e/test/runtimes/listingBudget.test.ts)',
  ],
  contextWindowPercent: 2,
  bytesPerToken: 4,
  fallbackChars: 8_000,
  defaultContextWindow: 500_000,
  entryCap: 1_024,
};

/** For a runtime whose listing nobody has measured: the planner reports this instead of a guess. */
export function listingNotObserved(why: string): UnobservedListingRules {
  return { observed: false, why };
}
