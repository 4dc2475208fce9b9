import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_LISTING, CODEX_LISTING } from '../adapters/listingRules.js';
import type { RankedListingRules, SharedListingRules } from './ListingRules.js';
import { type Listing, type ListingCandidate, planListing } from './planListing.js';

const claude: RankedListingRules = { ...CLAUDE_CODE_LISTING, budgetChars: 100, builtIns: { entries: 0, chars: 0 } };
const codexChars: SharedListingRules = { ...CODEX_LISTING, defaultContextWindow: null, fallbackChars: 120 };

function observed(listing: ReturnType<typeof planListing>): Listing {
  if (!listing.observed) throw new Error(`not observed: ${listing.why}`);
  return listing;
}

const skill = (name: string, description: string, extra: Partial<ListingCandidate> = {}): ListingCandidate => ({
  name,
  description,
  path: `r0/${name}/SKILL.md`,
  ...extra,
});

describe('planListing for a runtime that ranks by use (Claude Code)', () => {
  it('describes every skill when the whole list fits, and counts entries and line breaks', () => {
    const listing = observed(planListing(claude, [skill('a', 'x'.repeat(10)), skill('b', 'y'.repeat(20))]));
    // "- a: " + 10, "- b: " + 20, one line break
    expect(listing.wanted).toBe(5 + 10 + 5 + 20 + 1);
    expect(listing.over).toBe(0);
    expect(listing.entries.map((entry) => entry.status)).toEqual(['described', 'described']);
  });

  it('over budget, keeps descriptions by rank (pins, then recent use, then order) and lists the rest by bare name', () => {
    const candidates = [
      skill('old', 'o'.repeat(40), { lastUsed: 1 }),
      skill('new', 'n'.repeat(40), { lastUsed: 5 }),
      skill('pin', 'p'.repeat(40), { pinned: true }),
      skill('none', 'z'.repeat(40)),
    ];
    // Bare lines and breaks take 24 characters; each description adds 42: two of them fit in 120.
    const listing = observed(planListing({ ...claude, budgetChars: 120 }, candidates));
    // `- old: ` … (7 + 40) three times, `- none: ` (8 + 40), three line breaks
    expect(listing.wanted).toBe(3 * 47 + 48 + 3);
    expect(listing.over).toBe(listing.wanted - 120);
    expect(Object.fromEntries(listing.entries.map((entry) => [entry.name, entry.status]))).toEqual({
      old: 'name-only',
      new: 'described',
      pin: 'described',
      none: 'name-only',
    });
    expect(listing.used).toBe(24 + 2 * 42);
    expect(listing.pinsNotKept).toEqual([]);
  });

  it('caps one entry at its cap and reports a pin it cannot keep', () => {
    const rules: RankedListingRules = { ...claude, entryCap: 10, budgetChars: 12 };
    const listing = observed(planListing(rules, [skill('pinned', 'q'.repeat(50), { pinned: true })]));
    expect(listing.entries[0]).toMatchObject({ descriptionChars: 10, status: 'name-only', cost: 8 });
    expect(listing.pinsNotKept).toEqual(['pinned']);
  });

  it('charges the client’s own described entries to the budget', () => {
    const rules: RankedListingRules = { ...claude, builtIns: { entries: 2, chars: 90 } };
    const listing = observed(planListing(rules, [skill('a', 'x'.repeat(20))]));
    expect(listing.wanted).toBe(90 + 25 + 2);
    expect(listing.entries[0]?.status).toBe('name-only');
  });
});

describe('planListing for a runtime that shortens descriptions evenly (Codex)', () => {
  it('lists every description whole when the lines fit', () => {
    const listing = observed(planListing(codexChars, [skill('a', 'short')]));
    expect(listing.unit).toBe('characters');
    expect(listing.entries[0]).toMatchObject({ status: 'described', shownChars: 5, shortened: false });
    // "- a: short (file: r0/a/SKILL.md)\n"
    expect(listing.wanted).toBe(33);
  });

  it('shares the room left by bare lines one character at a time: short descriptions stay whole', () => {
    const candidates = [skill('a', 'x'.repeat(5)), skill('b', 'y'.repeat(100)), skill('c', 'z'.repeat(100))];
    const listing = observed(planListing(codexChars, candidates));
    // Each bare line "- a: (file: r0/a/SKILL.md)\n" is 27 characters: 81, so 39 are shared.
    const shown = listing.entries.map((entry) => entry.shownChars);
    expect(shown[0]).toBe(5);
    expect(listing.used).toBeLessThanOrEqual(120);
    expect(Math.abs((shown[1] ?? 0) - (shown[2] ?? 0))).toBeLessThanOrEqual(1);
    expect(listing.entries.slice(1).every((entry) => entry.shortened && entry.status === 'described')).toBe(true);
    expect(listing.over).toBe(listing.wanted - 120);
  });

  it('drops the skills past the budget when even bare lines do not fit', () => {
    const candidates = ['a', 'b', 'c', 'd', 'e'].map((name) => skill(name, 'words'));
    const listing = observed(planListing(codexChars, candidates));
    expect(listing.entries.map((entry) => entry.status)).toEqual(['name-only', 'name-only', 'name-only', 'name-only', 'dropped']);
    expect(listing.counts).toEqual({ described: 0, nameOnly: 4, dropped: 1, shortened: 0 });
  });

  it('cuts a description longer than the cap before any budget, and counts tokens of four bytes under a context window', () => {
    const long = 'é'.repeat(1_100);
    const listing = observed(planListing(CODEX_LISTING, [skill('a', long)], { contextWindow: 1_000_000 }));
    expect(listing.unit).toBe('tokens');
    expect(listing.budget).toBe(20_000);
    expect(listing.entries[0]).toMatchObject({ descriptionChars: 1_024, shownChars: 1_024, shortened: true });
    const line = `- a: ${'é'.repeat(1_021)}... (file: r0/a/SKILL.md)\n`;
    expect(listing.wanted).toBe(Math.ceil(Buffer.byteLength(line) / 4));
  });
});

describe('planListing for a runtime nobody measured', () => {
  it('says why instead of guessing', () => {
    const listing = planListing({ observed: false, why: 'no client pinned' }, [skill('a', 'b')]);
    expect(listing).toEqual({ observed: false, why: 'no client pinned', skills: 1 });
  });
});
