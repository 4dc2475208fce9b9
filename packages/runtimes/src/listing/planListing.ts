import type { ListingRules, RankedListingRules, SharedListingRules } from './ListingRules.js';

/** One skill a runtime will see, in the runtime's own listing order, as the planner needs it. */
export interface ListingCandidate {
  /** The name the runtime lists it under. */
  readonly name: string;
  /** The description the runtime reads (Claude Code: with `when_to_use` already joined). */
  readonly description: string;
  /** The path the runtime prints beside it (Codex), alias applied; ignored by runtimes that print none. */
  readonly path?: string;
  /** The owner pinned it: it must stay described. */
  readonly pinned?: boolean;
  /** When it was last used (ms since the epoch); unknown is null. Ranks entries where the runtime ranks by use. */
  readonly lastUsed?: number | null;
}

/**
 * - `described`: listed with its description (`shortened` says whether cut)
 * - `name-only`: listed by name, without a description
 * - `dropped`: not listed at all
 */
export type ListingStatus = 'described' | 'name-only' | 'dropped';

export interface ListingEntry {
  readonly name: string;
  readonly status: ListingStatus;
  /** The description's characters the runtime wants to show (after its own cap). */
  readonly descriptionChars: number;
  /** Of those, how many it shows. */
  readonly shownChars: number;
  /** Whether the description is shown cut short. */
  readonly shortened: boolean;
  /** What the entry costs as listed, in the budget's unit. */
  readonly cost: number;
  /** What it would cost with its whole description. */
  readonly fullCost: number;
  readonly pinned: boolean;
  /** When the runtime last used it (ms since the epoch), where it ranks by use and a use is known. */
  readonly lastUsed?: number;
}

/** The listing one runtime's prompt will hold. */
export interface Listing {
  readonly observed: true;
  readonly clientVersion: string;
  /** The budget, in `unit`s. */
  readonly budget: number;
  readonly unit: 'characters' | 'tokens';
  /** What the whole list would cost with every description whole. */
  readonly wanted: number;
  /** What the list costs as listed. */
  readonly used: number;
  /** How far `wanted` is over the budget; 0 when it fits. */
  readonly over: number;
  readonly entries: readonly ListingEntry[];
  readonly counts: { readonly described: number; readonly nameOnly: number; readonly dropped: number; readonly shortened: number };
  /** Pinned skills the runtime will still not describe in full. */
  readonly pinsNotKept: readonly string[];
}

export interface UnobservedListing {
  readonly observed: false;
  readonly why: string;
  /** How many skills the runtime sees; null when it was not planned (`loadout budget` plans only runtimes with rules unless named). */
  readonly skills: number | null;
}

export interface ListingOptions {
  /** The model's context window in tokens, when the owner configured one (Codex `model_context_window`). */
  readonly contextWindow?: number | null;
  /** A budget the owner set in the client's environment (Claude Code `SLASH_COMMAND_TOOL_CHAR_BUDGET`). */
  readonly budgetOverride?: number | null;
}

/**
 * The exact listing a runtime's prompt will hold for `candidates` (in its listing order) under its
 * `rules`: which skills are described, listed by name only or dropped, what each costs, the budget
 * and how far over it the whole list is. Pure: reads and writes nothing.
 */
export function planListing(
  rules: ListingRules,
  candidates: readonly ListingCandidate[],
  options: ListingOptions = {},
): Listing | UnobservedListing {
  if (!rules.observed) return { observed: false, why: rules.why, skills: candidates.length };
  return rules.kind === 'ranked-by-use' ? rankedListing(rules, candidates, options) : sharedListing(rules, candidates, options);
}

/** A UTF-16 code unit that is half of a surrogate pair (or a lone one). */
const SURROGATE = /[\uD800-\uDFFF]/;
/** A code unit past ASCII: where there is none, every code point is one UTF-8 byte. */
const NOT_ASCII = /[\u0080-\uFFFF]/;

/** Characters as the clients count them: Unicode code points. */
function chars(text: string): number {
  // Without surrogates every code unit is one code point (a lone surrogate is one too, but takes the walk).
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function summarize(
  rules: { clientVersion: string },
  unit: Listing['unit'],
  budget: number,
  wanted: number,
  used: number,
  entries: ListingEntry[],
): Listing {
  const counts = { described: 0, nameOnly: 0, dropped: 0, shortened: 0 };
  for (const entry of entries) {
    if (entry.status === 'described') counts.described += 1;
    else if (entry.status === 'name-only') counts.nameOnly += 1;
    else counts.dropped += 1;
    if (entry.shortened) counts.shortened += 1;
  }
  const pinsNotKept = entries
    .filter((entry) => entry.pinned && (entry.status !== 'described' || entry.shortened))
    .map((entry) => entry.name);
  return {
    observed: true,
    clientVersion: rules.clientVersion,
    budget,
    unit,
    wanted,
    used,
    over: Math.max(0, wanted - budget),
    entries,
    counts,
    pinsNotKept,
  };
}

/**
 * Claude Code's rule: entries `- name: text` joined by line breaks; over budget, its bundled
 * entries keep their text, the others start as `- name` and, best ranked first, get their text back
 * while it fits. Loadout ranks pinned skills first, then by last use (most recent first), then in
 * listing order, the order the client keeps among skills it has no use recorded for.
 */
function rankedListing(rules: RankedListingRules, candidates: readonly ListingCandidate[], options: ListingOptions): Listing {
  const budget = options.budgetOverride ?? rules.budgetChars;
  const capped = candidates.map((candidate) => Math.min(chars(candidate.description), rules.entryCap));
  const full = candidates.map((candidate, index) =>
    capped[index] === 0 ? chars(candidate.name) + 2 : chars(candidate.name) + 4 + (capped[index] ?? 0),
  );
  const bare = candidates.map((candidate) => chars(candidate.name) + 2);
  const count = candidates.length + rules.builtIns.entries;
  const wanted = full.reduce((sum, cost) => sum + cost, 0) + rules.builtIns.chars + Math.max(0, count - 1);
  const entryOf = (index: number, described: boolean): ListingEntry => {
    const candidate = candidates[index] as ListingCandidate;
    const descriptionChars = capped[index] ?? 0;
    return {
      name: candidate.name,
      status: described && descriptionChars > 0 ? 'described' : 'name-only',
      descriptionChars,
      shownChars: described ? descriptionChars : 0,
      shortened: described && chars(candidate.description) > rules.entryCap,
      cost: described ? (full[index] ?? 0) : (bare[index] ?? 0),
      fullCost: full[index] ?? 0,
      pinned: candidate.pinned === true,
      ...(candidate.lastUsed === undefined || candidate.lastUsed === null ? {} : { lastUsed: candidate.lastUsed }),
    };
  };
  if (wanted <= budget)
    return summarize(
      rules,
      'characters',
      budget,
      wanted,
      wanted,
      candidates.map((_, index) => entryOf(index, true)),
    );
  const allBare = bare.reduce((sum, cost) => sum + cost, 0) + rules.builtIns.chars + Math.max(0, count - 1);
  let left = budget - allBare;
  const ranked = candidates
    .map((candidate, index) => ({ index, pinned: candidate.pinned === true, lastUsed: candidate.lastUsed ?? Number.NEGATIVE_INFINITY }))
    .sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.lastUsed - a.lastUsed || a.index - b.index);
  const described = new Set<number>();
  for (const { index } of ranked) {
    const extra = (full[index] ?? 0) - (bare[index] ?? 0);
    if (extra <= left) {
      described.add(index);
      left -= extra;
    }
  }
  const entries = candidates.map((_, index) => entryOf(index, described.has(index)));
  const used = entries.reduce((sum, entry) => sum + entry.cost, 0) + rules.builtIns.chars + Math.max(0, count - 1);
  return summarize(rules, 'characters', budget, wanted, used, entries);
}

/** What text costs in the budget's unit: characters, or tokens of `bytesPerToken` bytes rounded up. */
interface Meter {
  readonly unit: Listing['unit'];
  readonly limit: number;
  cost(charCount: number, byteCount: number): number;
}

function meterFor(rules: SharedListingRules, options: ListingOptions): Meter {
  const window = options.contextWindow ?? rules.defaultContextWindow;
  if (window !== null && window > 0) {
    const limit = Math.max(1, Math.floor((window * rules.contextWindowPercent) / 100));
    return { unit: 'tokens', limit, cost: (_chars, bytes) => Math.ceil(bytes / rules.bytesPerToken) };
  }
  return { unit: 'characters', limit: rules.fallbackChars, cost: (charCount) => charCount };
}

/** One Codex line's parts: `- name: ` + description + ` (file: path)`, measured once. */
interface SharedLine {
  readonly candidate: ListingCandidate;
  /** How many code points of description the client would show whole, after its own cap. */
  readonly length: number;
  /**
   * Byte length of each description prefix: `prefixBytes[k]` for the first k code points; null
   * when the description is ASCII, where it is k (most are: no array made per skill for them).
   */
  readonly prefixBytes: Int32Array | null;
  /** Chars and bytes of the line without a description (`- name: (file: path)`) and its line break. */
  readonly bareChars: number;
  readonly bareBytes: number;
  /** Whether the client cut the description to its cap before any budget. */
  readonly capped: boolean;
}

/** The UTF-8 length of one code point (a lone surrogate is written as U+FFFD: 3 bytes). */
function utf8Bytes(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * A line's measures, read in one pass over the description's code points with no string made per
 * character: at 10,000 skills the planner's time was mostly spent making and measuring them.
 */
function sharedLine(rules: SharedListingRules, candidate: ListingCandidate): SharedLine {
  const text = candidate.description;
  const total = chars(text);
  const capped = total > rules.entryCap;
  const length = capped ? rules.entryCap : total;
  // Past the cap the client keeps `entryCap - 3` code points and adds `...`.
  const kept = capped ? rules.entryCap - 3 : length;
  const bare = `- ${candidate.name}: (file: ${candidate.path ?? ''})\n`;
  const bareChars = chars(bare);
  const bareBytes = Buffer.byteLength(bare);
  // ASCII, cut or not (the cut adds `...`): k code points are k bytes.
  if (!NOT_ASCII.test(text)) return { candidate, length, prefixBytes: null, bareChars, bareBytes, capped };
  const prefixBytes = new Int32Array(length + 1);
  let bytes = 0;
  let at = 0;
  for (let index = 0; index < kept; index += 1) {
    const codePoint = text.codePointAt(at) ?? 0;
    at += codePoint > 0xffff ? 2 : 1;
    bytes += utf8Bytes(codePoint);
    prefixBytes[index + 1] = bytes;
  }
  for (let index = kept; index < length; index += 1) {
    bytes += 1;
    prefixBytes[index + 1] = bytes;
  }
  return { candidate, length, prefixBytes, bareChars, bareBytes, capped };
}

/** The cost of a line showing the first `shown` code points of its description (0: none, and no space). */
function lineCost(meter: Meter, line: SharedLine, shown: number): number {
  if (shown === 0) return meter.cost(line.bareChars, line.bareBytes);
  const shownBytes = line.prefixBytes === null ? shown : (line.prefixBytes[shown] ?? 0);
  return meter.cost(line.bareChars + shown + 1, line.bareBytes + shownBytes + 1);
}

/**
 * Codex's rule: when every line fits whole, all are whole. Else, when every bare line fits, the room
 * left is handed out one description character at a time, skill after skill in listing order, pass
 * after pass, a character taken only when its extra cost still fits (so short descriptions end whole
 * and long ones share the rest). Else bare lines are listed in order while they fit, the rest dropped.
 */
function sharedListing(rules: SharedListingRules, candidates: readonly ListingCandidate[], options: ListingOptions): Listing {
  const meter = meterFor(rules, options);
  // The skill roots table printed above the list is not charged to the budget: measured with
  // 0.171.0, charging it leaves 23 of 400 entries one token shorter than the client shows them.
  const limit = meter.limit;
  const lines = candidates.map((candidate) => sharedLine(rules, candidate));
  const fullCosts = lines.map((line) => lineCost(meter, line, line.length));
  const wanted = fullCosts.reduce((sum, cost) => sum + cost, 0);
  const entryOf = (index: number, shown: number | null): ListingEntry => {
    const line = lines[index] as SharedLine;
    const length = line.length;
    return {
      name: line.candidate.name,
      status: shown === null ? 'dropped' : shown === 0 ? 'name-only' : 'described',
      descriptionChars: length,
      shownChars: shown ?? 0,
      shortened: shown !== null && shown > 0 && (shown < length || line.capped),
      cost: shown === null ? 0 : lineCost(meter, line, shown),
      fullCost: fullCosts[index] ?? 0,
      pinned: line.candidate.pinned === true,
    };
  };
  const finish = (shown: readonly (number | null)[]): Listing => {
    const entries = shown.map((count, index) => entryOf(index, count));
    const used = entries.reduce((sum, entry) => sum + entry.cost, 0);
    return summarize(rules, meter.unit, meter.limit, wanted, used, entries);
  };
  if (wanted <= limit) return finish(lines.map((line) => line.length));
  const bareCosts = lines.map((line) => lineCost(meter, line, 0));
  const bareTotal = bareCosts.reduce((sum, cost) => sum + cost, 0);
  if (bareTotal > limit) {
    let used = 0;
    return finish(
      bareCosts.map((cost) => {
        if (used + cost > limit) return null;
        used += cost;
        return 0;
      }),
    );
  }
  return finish(shareDescriptions(meter, lines, limit - bareTotal));
}

/**
 * Hands `room` out one description character at a time, in passes over the lines, as Codex does.
 * A line's extra cost for k characters is counted against its bare line, so in tokens most
 * characters cost nothing and every few bytes one token. Lines that cannot take their next
 * character this pass are tried again next pass; it ends when a pass changes nothing.
 *
 * The passes every line completes are found first, by bisection: a line's cost never falls as it
 * shows more, so when the lines' extra cost after pass p fits the room, every character of passes
 * 1..p was taken. Only the passes after those are walked character by character; a line refused
 * there stays refused (the room only shrinks), so they end within a few passes. The answer is the
 * walk's answer from the first pass (a property test holds them equal).
 */
function shareDescriptions(meter: Meter, lines: readonly SharedLine[], room: number): number[] {
  const bare = lines.map((line) => lineCost(meter, line, 0));
  const extraAfter = (pass: number): number => {
    let sum = 0;
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] as SharedLine;
      const shown = Math.min(pass, line.length);
      if (shown > 0) sum += lineCost(meter, line, shown) - (bare[index] ?? 0);
    }
    return sum;
  };
  let whole = 0;
  let high = lines.reduce((most, line) => Math.max(most, line.length), 0);
  while (whole < high) {
    const middle = Math.ceil((whole + high) / 2);
    if (extraAfter(middle) <= room) whole = middle;
    else high = middle - 1;
  }
  const shown = lines.map((line) => Math.min(whole, line.length));
  const extra = lines.map((line, index) => ((shown[index] ?? 0) === 0 ? 0 : lineCost(meter, line, shown[index] ?? 0) - (bare[index] ?? 0)));
  return walkPasses(meter, lines, shown, extra, bare, room - extraAfter(whole));
}

/** Codex's passes, character by character, from `shown` on with `left` room: see {@link shareDescriptions}. */
function walkPasses(
  meter: Meter,
  lines: readonly SharedLine[],
  shown: number[],
  extra: number[],
  bare: readonly number[],
  room: number,
): number[] {
  let left = room;
  let open = lines.map((_, index) => index).filter((index) => (shown[index] ?? 0) < (lines[index]?.length ?? 0));
  while (open.length > 0) {
    let changed = false;
    const still: number[] = [];
    for (const index of open) {
      const line = lines[index] as SharedLine;
      const next = (shown[index] ?? 0) + 1;
      const nextExtra = lineCost(meter, line, next) - (bare[index] ?? 0);
      const delta = Math.max(0, nextExtra - (extra[index] ?? 0));
      if (delta <= left) {
        shown[index] = next;
        extra[index] = nextExtra;
        left -= delta;
        changed = true;
      }
      if ((shown[index] ?? 0) < line.length) still.push(index);
    }
    open = still;
    if (!changed) break;
  }
  return shown;
}
