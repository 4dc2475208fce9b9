import path from 'node:path';
import { InvalidInputError, trackedFs } from '@loadout/files';
import { PRIVATE_FILE_MODE, withFileLock, writeFileAtomicSync } from '@loadout/files';
import { isJsonObject, parseMarkdown, Places, readTextInside, type Session, token } from '@loadout/kernel';
import { parse as parseToml } from 'smol-toml';
import { inject, injectable } from 'tsyringe';
import type { RuntimeAdapter } from '../RuntimeAdapter.js';
import { BundleStampCache } from '../BundleStampCache.js';
import { RuntimeEnvironment } from '../RuntimeEnvironment.js';
import { RuntimeConfigInvalidError } from '../RuntimeErrors.js';
import type { RuntimePlan, RuntimePlanPart } from '../RuntimePlan.js';
import { RuntimePlanner } from '../RuntimePlanner.js';
import type { SkillCopy } from '../RuntimeView.js';
import { readConfigText } from '../mcp/readConfigText.js';
import { skillFileFacts } from '../scanRuntimeRoot.js';
import type { ListingRules } from './ListingRules.js';
import { ListingUseReader, type ListingUses, NO_LISTING_USES } from './ListingUses.js';
import { type Listing, type ListingCandidate, type ListingOptions, planListing, type UnobservedListing } from './planListing.js';

/** Where the owner's pins are kept: `<data>/runtimes/listing-pins.json`, `{ "pins": [name, …] }`. */
export const LISTING_PINS_FILE = path.join('runtimes', 'listing-pins.json');

/** The rules a runtime is planned with, as reports show them. */
export interface ListingRulesReport {
  readonly observed: boolean;
  readonly client: string | null;
  readonly clientVersion: string | null;
  readonly observedOn: string | null;
  readonly sources: readonly string[];
  /** What could not be observed, and why (for an unobserved runtime: all of it). */
  readonly notObserved: string | null;
}

/** One runtime's listing with what the owner can do about it. */
export interface RuntimeBudget {
  readonly runtime: string;
  readonly rules: ListingRulesReport;
  readonly listing: Listing | UnobservedListing;
  /** One line: how many skills it lists, how many described, how far over its budget. */
  readonly summary: string;
  /** What to do, most useful first. */
  readonly advice: readonly string[];
}

export interface BudgetReport {
  readonly project: string | null;
  readonly pins: readonly string[];
  readonly runtimes: readonly RuntimeBudget[];
  /**
   * Why the usage ledger that ranks listings by recent use could not be read, or null: the
   * listing is then planned as if nothing was used (a finding, never a failure).
   */
  readonly usageProblem: string | null;
}

/** A pin that is not a skill name a runtime could list. */
export class ListingPinInvalidError extends InvalidInputError {
  constructor(name: string) {
    super(
      'LISTING_PIN_INVALID',
      `"${name.slice(0, 80)}" is not a skill name: 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit`,
    );
  }
}

/** A runtime without measured rules says this. */
const NOT_MEASURED =
  'not observed: no client of this runtime is pinned in Loadout’s tests, and its documentation states no listing budget, so its listing is not predicted';

const PIN_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._:-]{0,127}$/u;

/**
 * The listing-budget planner's service: for each runtime of a plan, the exact listing its prompt
 * will hold (`planListing` over the skills the runtime sees once the plan ran), and the owner's pins.
 */
export interface ListingBudget {
  /** Plans the session for `runtimes` (every one when empty) and reports each one's listing. */
  report(session: Session, runtimes?: readonly string[]): Promise<BudgetReport>;
  /** The same report for a plan already made (apply --dry-run, why). */
  fromPlan(plan: RuntimePlan): Promise<BudgetReport>;
  pins(): readonly string[];
  pin(name: string): Promise<{ pins: readonly string[] }>;
  unpin(name: string): Promise<{ pins: readonly string[] }>;
}
export const ListingBudget = token<ListingBudget>('runtimes.listingBudget');

@injectable()
export class PlannedListingBudget implements ListingBudget {
  constructor(
    @inject(RuntimePlanner) private readonly planner: RuntimePlanner,
    @inject(RuntimeEnvironment) private readonly env: RuntimeEnvironment,
    @inject(Places) private readonly places: Places,
    @inject(ListingUseReader) private readonly uses: ListingUseReader,
  ) {}

  async report(session: Session, runtimes: readonly string[] = []): Promise<BudgetReport> {
    if (runtimes.length > 0) return await this.fromKeptPlan(await this.planner.plan(session, runtimes));
    // Unasked, only the runtimes whose listing rules are known are planned: a plan is per runtime
    // and per skill, and for the others there is no listing to predict, only a count (`--runtime R`
    // plans one and counts what it sees).
    const adapters = this.planner.adapters();
    const ruled = adapters.filter((adapter) => adapter.listing?.observed === true).map((adapter) => adapter.name);
    const planned = await this.fromKeptPlan(await this.planner.plan(session, ruled, { exactly: true }));
    const byName = new Map(planned.runtimes.map((runtime) => [runtime.runtime, runtime]));
    return {
      ...planned,
      runtimes: adapters.map((adapter) => byName.get(adapter.name) ?? unplannedBudget(adapter)),
    };
  }

  async fromPlan(plan: RuntimePlan): Promise<BudgetReport> {
    // Only the runtimes that rank by recent use read the ledger: for the others it changes nothing.
    const ranking = plan.parts.filter((part) => part.adapter.listing?.observed === true && part.adapter.listing.kind === 'ranked-by-use');
    const uses = await this.uses.read(ranking.map((part) => part.adapter.name));
    return budgetOfPlan(plan, this.places.dataDir, this.env, uses);
  }

  /**
   * The report of a plan made for it, keeping what the plan learned of the skills' bundles as an
   * apply keeps it: the next plan knows an unchanged bundle by a `lstat` of its paths instead of
   * reading and hashing it (each stamp is checked again before it is believed, so a report running
   * beside an apply can only cost a later plan a read).
   */
  private async fromKeptPlan(plan: RuntimePlan): Promise<BudgetReport> {
    const report = await this.fromPlan(plan);
    plan.stamps.save();
    return report;
  }

  pins(): readonly string[] {
    return readPins(this.places.dataDir);
  }

  pin(name: string): Promise<{ pins: readonly string[] }> {
    return this.changePins(name, (pins) => [...new Set([...pins, name])]);
  }

  unpin(name: string): Promise<{ pins: readonly string[] }> {
    return this.changePins(name, (pins) => pins.filter((pin) => pin !== name));
  }

  private async changePins(name: string, change: (pins: readonly string[]) => string[]): Promise<{ pins: readonly string[] }> {
    if (!PIN_NAME.test(name)) throw new ListingPinInvalidError(name);
    const file = this.pinsFile();
    trackedFs.mkdirSync(path.dirname(file), { recursive: true });
    return withFileLock(file, () => {
      const before = this.pins();
      const pins = change(before).sort();
      if (pins.join('\n') !== [...before].sort().join('\n'))
        writeFileAtomicSync(file, `${JSON.stringify({ pins }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
      return { pins };
    });
  }

  private pinsFile(): string {
    return path.join(this.places.dataDir, LISTING_PINS_FILE);
  }
}

/**
 * Every planned runtime's listing, with the owner's pins from `dataDir`, the budgets the owner
 * configured and, where the runtime ranks by recent use, each skill's last use from `uses`.
 */
export function budgetOfPlan(
  plan: RuntimePlan,
  dataDir: string,
  env: RuntimeEnvironment,
  uses: ListingUses = NO_LISTING_USES,
): BudgetReport {
  const pins = readPins(dataDir);
  const pinned = new Set(pins);
  const files = new CopyFiles(plan.stamps);
  return {
    project: plan.project === null ? null : '<project>',
    pins,
    runtimes: plan.parts.map((part) =>
      runtimeBudget(part, pinned, listingOptionsFor(part.adapter, env), files, uses.byRuntime.get(part.adapter.name)),
    ),
    usageProblem: uses.problem,
  };
}

/** The pins kept in `dataDir`; none when the file does not exist. */
export function readPins(dataDir: string): string[] {
  const file = path.join(dataDir, LISTING_PINS_FILE);
  let text: string;
  try {
    text = trackedFs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RuntimeConfigInvalidError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  return pinsIn(text, file);
}

/** What the owner configured that changes a budget: Codex's `model_context_window`, Claude Code's budget variable. */
function listingOptionsFor(adapter: RuntimeAdapter, env: RuntimeEnvironment): ListingOptions {
  if (adapter.listing?.observed !== true) return {};
  if (adapter.listing.kind === 'ranked-by-use') {
    const set = Number(process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET);
    return { budgetOverride: Number.isFinite(set) && set > 0 ? Math.floor(set) : null };
  }
  if (env.codexHome.relative) return {};
  return { contextWindow: codexContextWindow(path.join(env.codexHome.dir, 'config.toml')) };
}

/** The pins a file holds; a file that is not `{ "pins": [text…] }` is refused, never rewritten. */
function pinsIn(text: string, file: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RuntimeConfigInvalidError(file, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed.pins) || !parsed.pins.every((pin) => typeof pin === 'string'))
    throw new RuntimeConfigInvalidError(file, 'must hold { "pins": [skill names] }');
  return parsed.pins as string[];
}

/** `model_context_window` from Codex's `config.toml`; null when absent or unreadable (the default model's window is planned). */
function codexContextWindow(file: string): number | null {
  // Read as the MCP part reads it (a FIFO or a folder in its place is refused, never waited on);
  // a file that cannot be read is reported there, so here it only means the default window.
  let text: string | null;
  try {
    text = readConfigText(file, '$CODEX_HOME/config.toml');
  } catch {
    return null;
  }
  if (text === null) return null;
  try {
    const window = parseToml(text).model_context_window;
    return typeof window === 'number' && window > 0 ? window : null;
  } catch {
    // Codex itself refuses a file it cannot parse; the plan's MCP part reports that file.
    return null;
  }
}

/** The listing of one planned runtime. */
export function runtimeBudget(
  part: RuntimePlanPart,
  pinned: ReadonlySet<string>,
  options: ListingOptions,
  files: CopyFiles = new CopyFiles(),
  lastUses: ReadonlyMap<string, number> = new Map(),
): RuntimeBudget {
  const rules: ListingRules = part.adapter.listing ?? { observed: false, why: NOT_MEASURED };
  const seen = seenCopies(part);
  const candidates = rules.observed
    ? listingCandidates(part, seen, rules, pinned, files, lastUses)
    : seen.map((copy) => ({ name: copy.name, description: '' }));
  const listing = planListing(rules, candidates, options);
  return {
    runtime: part.adapter.name,
    rules: rules.observed
      ? {
          observed: true,
          client: rules.client,
          clientVersion: rules.clientVersion,
          observedOn: rules.observedOn,
          sources: rules.sources,
          notObserved: rules.notObserved ?? null,
        }
      : { observed: false, client: null, clientVersion: null, observedOn: null, sources: [], notObserved: rules.why },
    listing,
    summary: summaryLine(
      part.adapter.name,
      rules,
      listing,
      rules.observed ? seen.filter((copy) => copy.state === 'installed-at-start' && files.frontmatter(copy) === null).length : 0,
    ),
    advice: adviceFor(rules, listing),
  };
}

/** A runtime without listing rules that was not planned: its listing is not predicted, nor are its skills counted. */
function unplannedBudget(adapter: RuntimeAdapter): RuntimeBudget {
  const why = adapter.listing?.observed === false ? adapter.listing.why : NOT_MEASURED;
  return {
    runtime: adapter.name,
    rules: { observed: false, client: null, clientVersion: null, observedOn: null, sources: [], notObserved: why },
    listing: { observed: false, why, skills: null },
    summary: `${adapter.name}: listing ${why} (\`loadout budget --runtime ${adapter.name}\` counts the skills it sees)`,
    advice: [],
  };
}

/** The copies a runtime loads once the plan ran. */
function seenCopies(part: RuntimePlanPart): SkillCopy[] {
  return part.view.filter((copy) => copy.loaded && copy.state !== 'held');
}

/** Codex lists system skills first, then administrator, repository and user skills, each by name. */
const CODEX_SCOPE_ORDER: Readonly<Record<string, number>> = { builtin: 0, managed: 1, project: 2, user: 3 };

/**
 * The skills a runtime lists, in its order, with the descriptions it reads (and, where it ranks by
 * use, when each was last used by it, from the ledger). The runtime's compiled-in
 * names are not candidates: Claude Code's are charged by its rules' measured `builtIns`. Codex's
 * skills whose `agents/openai.yaml` turns implicit invocation off are not listed by it.
 */
function listingCandidates(
  part: RuntimePlanPart,
  seen: readonly SkillCopy[],
  rules: ListingRules & { observed: true },
  pinned: ReadonlySet<string>,
  files: CopyFiles,
  lastUses: ReadonlyMap<string, number>,
): ListingCandidate[] {
  const copies = seen.filter((copy) => copy.dir !== null);
  if (rules.kind === 'ranked-by-use')
    return copies.map((copy) => {
      const frontmatter = files.frontmatter(copy);
      const description = textOf(frontmatter?.description);
      const whenToUse = textOf(frontmatter?.when_to_use);
      return {
        name: copy.name,
        description: whenToUse === '' ? description : `${description} - ${whenToUse}`,
        pinned: pinned.has(copy.name),
        lastUsed: lastUses.get(copy.name) ?? null,
      };
    });
  const listed = copies
    .filter((copy) => !files.implicitInvocationOff(copy))
    .map((copy) => ({ copy, scope: CODEX_SCOPE_ORDER[part.roots[copy.rootIndex]?.scope ?? 'user'] ?? 3 }))
    .sort((a, b) => a.scope - b.scope || compareText(a.copy.name, b.copy.name) || compareText(a.copy.dir ?? '', b.copy.dir ?? ''));
  const aliases = rootAliases(listed.map(({ copy }) => path.dirname(copy.dir as string)));
  return listed.map(({ copy }) => ({
    name: copy.name,
    description: textOf(files.frontmatter(copy)?.description),
    path: `${aliases.get(path.dirname(copy.dir as string)) ?? 'r0'}/${path.basename(copy.dir as string)}/SKILL.md`,
    pinned: pinned.has(copy.name),
  }));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Codex's short names for the folders skills are in (`r0`, `r1` …): the fullest folder first, then by path. */
function rootAliases(folders: readonly string[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const folder of folders) counts.set(folder, (counts.get(folder) ?? 0) + 1);
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]));
  return new Map(ordered.map(([folder], index) => [folder, `r${index}`]));
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** Where a skill says how Codex may invoke it, inside its folder. */
const OPENAI_POLICY_FILE = 'agents/openai.yaml';

/** Copies whose folder is (re)written from their Loadout skill by the apply the plan describes. */
const WRITTEN_FROM_SOURCE: ReadonlySet<SkillCopy['state']> = new Set(['to-write', 'to-update']);

/**
 * The files of the copies one report reads, each read and parsed once: Claude Code and Codex list
 * the same Loadout skills from their own folders, so a skill's source is asked for by both. A file
 * that is not there is looked for, not tried (no thrown error per missing file).
 */
export class CopyFiles {
  private readonly frontmatters = new Map<string, Readonly<Record<string, unknown>> | null | 'absent'>();
  private readonly policies = new Map<string, boolean | 'absent'>();

  /** `stamps`: the plan's bundles, whose `SKILL.md` frontmatter a copy written from them will hold (not read nor parsed again). */
  constructor(private readonly stamps: BundleStampCache = BundleStampCache.none()) {}

  /**
   * The frontmatter of the `SKILL.md` a copy will have: its Loadout skill's when the apply writes
   * it from there, else the copy's own once it exists, else the skill it is to be written from.
   */
  frontmatter(copy: SkillCopy): Readonly<Record<string, unknown>> | null {
    if (WRITTEN_FROM_SOURCE.has(copy.state) && copy.source !== null) {
      // Read and parsed once by the plan, for every runtime the copy is written for.
      const hash = copy.hash();
      const frontmatter = hash === null ? undefined : this.stamps.frontmatterOf(hash);
      if (frontmatter !== undefined) return frontmatter;
    }
    const source = copy.source === null ? null : copy.source.endsWith('.md') ? copy.source : path.join(copy.source, 'SKILL.md');
    const files = inReadingOrder(copy, path.join(copy.dir as string, 'SKILL.md'), source);
    const known = firstReadable(
      files,
      this.frontmatters,
      (text, file) => skillFileFacts(text, path.basename(path.dirname(file)), false).frontmatter,
    );
    return known === 'absent' ? null : known;
  }

  /** Whether `agents/openai.yaml` says `policy.allow_implicit_invocation: false` (read with the same bounded YAML reader). */
  implicitInvocationOff(copy: SkillCopy): boolean {
    const policy = (folder: string): string => path.join(folder, 'agents', 'openai.yaml');
    const fromFolder = copy.source !== null && !copy.source.endsWith('.md');
    if (fromFolder && WRITTEN_FROM_SOURCE.has(copy.state)) {
      // The copy will hold its skill's bundle exactly: a bundle without the file says no, unread
      // (and no path made for it: at 10,000 skills that was most of this question's time).
      const hash = copy.hash();
      if (hash !== null && this.stamps.holds(hash, OPENAI_POLICY_FILE) === false) return false;
    }
    const source = fromFolder ? policy(copy.source as string) : null;
    const known = firstReadable(inReadingOrder(copy, policy(copy.dir as string), source), this.policies, policyOff);
    return known === 'absent' ? false : known;
  }
}

/** A copy's own file and its Loadout skill's, in the order they speak for it: the skill's first when the apply writes the copy from it. */
function inReadingOrder(copy: SkillCopy, own: string, source: string | null): string[] {
  if (source === null) return [own];
  return WRITTEN_FROM_SOURCE.has(copy.state) ? [source, own] : [own, source];
}

/**
 * What the first of `files` that can be read says (`read` of its text), each file read once per
 * report (`memo`); 'absent' when none can. A file is looked for before it is read, so a missing
 * one costs no thrown error. Read as the kernel reads documents it does not own, inside the
 * folder above the file's own (the skills root for a `SKILL.md`, the skill for its
 * `agents/openai.yaml`): never waiting on a FIFO, a regular file of bounded size only.
 */
function firstReadable<T>(
  files: readonly string[],
  memo: Map<string, T | 'absent'>,
  read: (text: string, file: string) => T,
): T | 'absent' {
  for (const file of files) {
    let known = memo.get(file);
    if (known === undefined) {
      let text: string | null = null;
      try {
        text = trackedFs.existsSync(file) ? readTextInside(path.dirname(path.dirname(file)), file) : null;
      } catch {
        // Refused (not a regular file, too large, a link out of its folder): it says nothing.
      }
      known = text === null ? 'absent' : read(text, file);
      memo.set(file, known);
    }
    if (known !== 'absent') return known;
  }
  return 'absent';
}

/** `policy.allow_implicit_invocation: false` in an `agents/openai.yaml` text; a text that does not parse says nothing against listing. */
function policyOff(text: string): boolean {
  try {
    const policy = parseMarkdown(`---\n${text}\n---\n`, 'openai.yaml').frontmatter.policy;
    return isJsonObject(policy) && policy.allow_implicit_invocation === false;
  } catch {
    return false;
  }
}

const number = (value: number): string => value.toLocaleString('en-US');

const skillCount = (count: number): string => `${number(count)} skill${count === 1 ? '' : 's'}`;

/**
 * One line per runtime. `notYetOnDisk` counts skills the client installs at its first start, not
 * there yet: their descriptions cannot be read, so they count by name until the client has started.
 */
function summaryLine(runtime: string, rules: ListingRules, listing: Listing | UnobservedListing, notYetOnDisk: number): string {
  if (!rules.observed || !listing.observed)
    return `${runtime} lists ${skillCount(listing.observed ? listing.entries.length : (listing.skills ?? 0))}: listing ${NOT_MEASURED}`;
  const { described, nameOnly, dropped } = listing.counts;
  const parts = [`${number(described)} described`];
  if (listing.counts.shortened > 0) parts[0] = `${number(described)} described (${number(listing.counts.shortened)} shortened)`;
  if (nameOnly > 0) parts.push(`${number(nameOnly)} by name only`);
  if (dropped > 0) parts.push(`${number(dropped)} dropped`);
  const where =
    listing.over > 0
      ? `over its budget by ${number(listing.over)} ${listing.unit}`
      : `within its budget of ${number(listing.budget)} ${listing.unit}`;
  const pending = notYetOnDisk === 0 ? '' : `; ${number(notYetOnDisk)} it installs at its first start count by name until then`;
  return `${rules.client} lists ${skillCount(listing.entries.length - dropped)}: ${parts.join(', ')} (${where})${pending}`;
}

function adviceFor(rules: ListingRules, listing: Listing | UnobservedListing): string[] {
  if (!rules.observed || !listing.observed || listing.over === 0) return [];
  const advice: string[] = [];
  if (listing.pinsNotKept.length > 0)
    advice.push(
      `pinned but not described in full: ${listing.pinsNotKept.slice(0, 10).join(', ')}; unpin others or turn rarely used skills off for this project`,
    );
  const costly = [...listing.entries].sort((a, b) => b.fullCost - a.fullCost).slice(0, 3);
  advice.push(
    `shorten the costliest descriptions first: ${costly.map((entry) => `${entry.name} (${number(entry.fullCost)} ${listing.unit})`).join(', ')}`,
  );
  advice.push(
    'turn rarely used skills off for this project (loadout capability set skill/ID --disable --project DIR) to leave room for the rest',
  );
  advice.push('pin the skills that must stay described (loadout budget pin NAME)');
  return advice;
}

/**
 * How one skill fares in a runtime's listing, in words for `loadout why`, e.g. `listed without
 * description: over Claude Code's budget by 23,410 characters`; null when the runtime's listing is
 * not observed or it does not list the name.
 */
export function listingVerdict(runtime: RuntimeBudget, name: string): string | null {
  const { listing, rules } = runtime;
  if (!listing.observed || rules.client === null) return null;
  const entry = listing.entries.find((candidate) => candidate.name === name);
  if (entry === undefined) return null;
  const over = `over ${rules.client}'s budget by ${number(listing.over)} ${listing.unit}`;
  const pinned = `${entry.pinned ? ' (pinned)' : ''}${entry.lastUsed === undefined ? '' : ` (last used ${new Date(entry.lastUsed).toISOString().slice(0, 10)})`}`;
  if (entry.status === 'dropped') return `not listed${pinned}: ${over}`;
  if (entry.status === 'name-only') return `listed without description${pinned}: ${over}`;
  if (entry.shortened)
    return `listed with its description shortened to ${number(entry.shownChars)} of ${number(entry.descriptionChars)} characters${pinned}: ${over}`;
  return `listed with its description${pinned}`;
}
