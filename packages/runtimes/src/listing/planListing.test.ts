import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

describe('planListing counts characters and bytes of every kind of text alike', () => {
  it('measures an ASCII description as the line the client prints, cut at the cap or not', () => {
    const long = 'plain text '.repeat(100).trim();
    const listing = observed(planListing(CODEX_LISTING, [skill('a', long), skill('b', 'short')], { contextWindow: 1_000_000 }));
    expect(listing.entries.map((entry) => [entry.descriptionChars, entry.shortened])).toEqual([
      [1_024, true],
      [5, false],
    ]);
    const lines = [`- a: ${long.slice(0, 1_021)}... (file: r0/a/SKILL.md)\n`, '- b: short (file: r0/b/SKILL.md)\n'];
    expect(listing.wanted).toBe(lines.reduce((sum, line) => sum + Math.ceil(Buffer.byteLength(line) / 4), 0));
  });

  it('counts a character outside the BMP as one, and a lone surrogate as one', () => {
    const rules: RankedListingRules = { ...claude, budgetChars: 10_000 };
    const listing = observed(planListing(rules, [skill('a', '😀😀x'), skill('b', 'x\uD800y')]));
    expect(listing.entries.map((entry) => entry.descriptionChars)).toEqual([3, 3]);
    // "- a: " + 3, "- b: " + 3, one line break
    expect(listing.wanted).toBe(5 + 3 + 5 + 3 + 1);
  });
});

describe('planListing for a runtime nobody measured', () => {
  it('says why instead of guessing', () => {
    const listing = planListing({ observed: false, why: 'no client pinned' }, [skill('a', 'b')]);
    expect(listing).toEqual({ observed: false, why: 'no client pinned', skills: 1 });
  });
});

/**
 * Codex's rule as plainly as it can be said, for the property below: every line whole if all fit;
 * else, when the bare lines fit, the room handed out one code point at a time, line after line,
 * pass after pass, a code point taken only when its extra cost still fits; else bare lines in order.
 */
function codexByHand(rules: SharedListingRules, contextWindow: number | null, candidates: readonly ListingCandidate[]): (number | null)[] {
  const window = contextWindow ?? rules.defaultContextWindow;
  const tokens = window !== null && window > 0;
  const limit = tokens ? Math.max(1, Math.floor((window * rules.contextWindowPercent) / 100)) : rules.fallbackChars;
  const descriptions = candidates.map((candidate) => {
    const points = [...candidate.description];
    return points.length > rules.entryCap ? [...points.slice(0, rules.entryCap - 3), '.', '.', '.'] : points;
  });
  const cost = (index: number, shown: number): number => {
    const candidate = candidates[index] as ListingCandidate;
    const line = `- ${candidate.name}: ${shown === 0 ? '' : `${(descriptions[index] as string[]).slice(0, shown).join('')} `}(file: ${candidate.path})\n`;
    return tokens ? Math.ceil(Buffer.byteLength(line) / rules.bytesPerToken) : [...line].length;
  };
  const all = candidates.map((_, index) => index);
  const whole = all.reduce((sum, index) => sum + cost(index, (descriptions[index] as string[]).length), 0);
  if (whole <= limit) return all.map((index) => (descriptions[index] as string[]).length);
  const bare = all.map((index) => cost(index, 0));
  const bareTotal = bare.reduce((sum, value) => sum + value, 0);
  if (bareTotal > limit) {
    let used = 0;
    return bare.map((value) => (used + value > limit ? null : ((used += value), 0)));
  }
  const shown = all.map(() => 0);
  let left = limit - bareTotal;
  for (let changed = true; changed; ) {
    changed = false;
    for (const index of all) {
      if ((shown[index] as number) >= (descriptions[index] as string[]).length) continue;
      const delta = cost(index, (shown[index] as number) + 1) - cost(index, shown[index] as number);
      if (delta <= left) {
        shown[index] = (shown[index] as number) + 1;
        left -= delta;
        changed = true;
      }
    }
  }
  return shown;
}

describe('planListing for Codex, against its rule said plainly', () => {
  it('shows exactly the characters the plain pass-by-pass hand-out shows, in tokens and in characters', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '字', '😀'), maxLength: 60 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ description: text, length: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 12 }),
        fc.oneof(fc.constant(null), fc.integer({ min: 50, max: 5_000 })),
        fc.integer({ min: 8, max: 40 }),
        fc.integer({ min: 60, max: 1_500 }),
        (drawn, contextWindow, entryCap, fallbackChars) => {
          const rules: SharedListingRules = { ...CODEX_LISTING, entryCap, fallbackChars, defaultContextWindow: null };
          const candidates = drawn.map((one, index) => skill(`s${index}`, one.description.repeat(one.length + 1)));
          const listing = observed(planListing(rules, candidates, { contextWindow }));
          const expected = codexByHand(rules, contextWindow, candidates);
          expect(listing.entries.map((entry) => (entry.status === 'dropped' ? null : entry.shownChars))).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});
