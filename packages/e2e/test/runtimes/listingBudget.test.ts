import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeListingLog, claudeOnPath, codexPromptListing, REAL_CLIENTS_MS } from './realClients.js';

afterEach(() => removeTestdirs());

/** `loadout budget --json`, the fields these tests read. */
interface BudgetJson {
  pins: string[];
  runtimes: {
    runtime: string;
    summary: string;
    rules: { observed: boolean; clientVersion: string | null; notObserved: string | null };
    listing:
      | { observed: false; why: string; skills: number | null }
      | {
          observed: true;
          budget: number;
          unit: string;
          wanted: number;
          used: number;
          over: number;
          counts: { described: number; nameOnly: number; dropped: number; shortened: number };
          entries: { name: string; status: string; shownChars: number; descriptionChars: number; pinned: boolean }[];
        };
  }[];
}

const WORDS = ['render', 'charts', 'from', 'tables', 'when', 'asked', 'for', 'plots', 'and', 'reports', 'café', 'naïve'];
/** Description lengths that cover short ones, long ones and ones past Codex's 1,024-character cap. */
const LENGTHS = [12, 40, 90, 200, 450, 800, 1_024, 1_100];

/** The `index`th skill's description: words of the fixture's vocabulary, some non-ASCII, cut to a varied length. */
function description(index: number): string {
  const length = LENGTHS[index % LENGTHS.length] ?? 40;
  let text = `Skill ${index}`;
  for (let word = index; text.length < length; word += 7) text += ` ${WORDS[word % WORDS.length]}`;
  return text.slice(0, length).trim();
}

/**
 * A machine with both clients' folders in a scratch home and a workspace of 400 skills with
 * descriptions of varied length: far more than either client's budget holds.
 */
function fourHundredSkills() {
  const base = testdir({});
  const home = path.join(base, 'home');
  for (const folder of ['.claude', '.codex']) fs.mkdirSync(path.join(home, folder), { recursive: true });
  const skills: Record<string, TreeDescription> = {};
  for (let index = 0; index < 400; index += 1) {
    const name = `skill-${String(index).padStart(3, '0')}`;
    skills[name] = { 'SKILL.md': `---\nname: ${name}\ndescription: ${description(index)}\n---\nUse ${name} when asked.\n` };
  }
  const workspace = path.join(base, 'workspace');
  gitRepo(path.join(workspace, 'capabilities'), { skills });
  const PATH = `${claudeOnPath(base, '2.1.197')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH, LOADOUT_DATA_DIR: path.join(base, 'data') });
  return { base, home, workspace, data: path.join(base, 'data'), loadout };
}

function runtimeOf(report: BudgetJson, runtime: string) {
  const found = report.runtimes.find((entry) => entry.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the budget`);
  return found;
}

/** Every file under `dir`, relative, with its bytes: what "nothing written" compares. */
function snapshot(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) return {};
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = fs.readFileSync(file, 'base64');
  }
  return files;
}

describe('the listing-budget planner against the real clients', () => {
  it(
    "plans Codex 0.171.0's model-visible skill list entry by entry: order, what is described, by name only or dropped, and how many characters each shows",
    async () => {
      const machine = fourHundredSkills();
      expect(machine.loadout('apply', '--runtime', 'codex').status).toBe(0);
      // Codex installs its system skills at its first start; asked once, they are on disk for the plan.
      const real = codexPromptListing(machine.home, machine.home);
      expect(real.length).toBeGreaterThan(400);

      const run = machine.loadout('budget', '--runtime', 'codex', '--json');
      expect(run.status, run.stderr).toBe(0);
      const codex = runtimeOf(run.json<BudgetJson>(), 'codex');
      if (!codex.listing.observed) throw new Error(codex.listing.why);
      expect(codex.listing.over).toBeGreaterThan(0);
      expect(codex.listing.counts.shortened).toBeGreaterThan(100);
      const planned = codex.listing.entries
        .filter((entry) => entry.status !== 'dropped')
        .map((entry) => ({ name: entry.name, shownChars: entry.shownChars }));
      expect(planned).toEqual(real);
      expect(codex.summary).toMatch(/^Codex lists \d+ skills: \d+ described \(\d+ shortened\).*over its budget by [\d,]+ tokens\)$/);
    },
    REAL_CLIENTS_MS,
  );

  it(
    "plans Claude Code 2.1.197's listing to the count, characters and budget its debug log reports, and says what of it cannot be observed offline",
    async () => {
      const machine = fourHundredSkills();
      expect(machine.loadout('apply', '--runtime', 'claude-code').status).toBe(0);
      const log = await claudeListingLog(machine.home, machine.home);
      expect(log).not.toBeNull();

      const run = machine.loadout('budget', '--runtime', 'claude-code', '--json');
      expect(run.status, run.stderr).toBe(0);
      const claude = runtimeOf(run.json<BudgetJson>(), 'claude-code');
      if (!claude.listing.observed) throw new Error(claude.listing.why);
      // The client's count includes its own 13 bundled skills, which the rules charge as measured.
      expect({ skills: claude.listing.entries.length + 13, chars: claude.listing.wanted, budget: claude.listing.budget }).toEqual(log);
      expect(claude.listing.used).toBeLessThanOrEqual(claude.listing.budget);
      expect(claude.listing.counts.nameOnly).toBeGreaterThan(0);
      // The order and cut are not observable offline: the adapter says so, and why.
      expect(claude.rules.notObserved).toMatch(/only inside a model request/);
      expect(claude.summary).toMatch(
        /^Claude Code lists 400 skills: \d+ described, \d+ by name only \(over its budget by [\d,]+ characters\)$/,
      );
    },
    REAL_CLIENTS_MS,
  );
});

describe('loadout budget', () => {
  it('reports every runtime, keeps a pin across runs, and refuses bad input with a coded error, writing nothing', () => {
    const machine = fourHundredSkills();
    const report = machine.loadout('budget', '--json');
    expect(report.status, report.stderr).toBe(0);
    const budget = report.json<BudgetJson>();
    expect(runtimeOf(budget, 'claude-code').listing.observed).toBe(true);
    const cursor = runtimeOf(budget, 'cursor');
    expect(cursor.listing.observed).toBe(false);
    expect(cursor.rules.notObserved).toMatch(/^not observed: /);
    // Unasked, a runtime without rules is not planned (a plan per runtime and skill is the cost):
    // nothing is counted for it, and the line says how to count. Named, it is planned and counted.
    expect(cursor.listing).toMatchObject({ observed: false, skills: null });
    const named = runtimeOf(machine.loadout('budget', '--runtime', 'cursor', '--json').json<BudgetJson>(), 'cursor');
    expect(named.listing).toMatchObject({ observed: false, skills: expect.any(Number) });

    expect(machine.loadout('budget', 'pin', 'skill-399', '--json').json<{ pins: string[] }>().pins).toEqual(['skill-399']);
    const pinned = machine.loadout('budget', '--runtime', 'claude-code', '--json').json<BudgetJson>();
    expect(pinned.pins).toEqual(['skill-399']);
    const claude = runtimeOf(pinned, 'claude-code');
    if (!claude.listing.observed) throw new Error(claude.listing.why);
    // Ranked first, the pinned skill keeps its description although it is listed last.
    expect(claude.listing.entries.find((entry) => entry.name === 'skill-399')).toMatchObject({ pinned: true, status: 'described' });

    const dryRun = machine.loadout('apply', '--dry-run', '--runtime', 'claude-code');
    expect(dryRun.status, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toMatch(
      /^Claude Code lists 400 skills: \d+ described, \d+ by name only \(over its budget by [\d,]+ characters\)$/m,
    );
    const why = machine.loadout('why', 'skill-390', '--json').json<{ runtimes: { runtime: string; listing: string | null }[] }>();
    expect(why.runtimes.find((runtime) => runtime.runtime === 'claude-code')?.listing).toMatch(
      /^listed without description: over Claude Code's budget by [\d,]+ characters$/,
    );

    const before = snapshot(machine.base);
    const unknown = machine.loadout('budget', '--runtime', 'no-such-runtime', '--json');
    expect(unknown.status).toBe(1);
    expect(unknown.json<{ error: { code: string } }>().error.code).toBe('RUNTIME_UNKNOWN');
    const badPin = machine.loadout('budget', 'pin', '../etc', '--json');
    expect(badPin.status).toBe(1);
    expect(badPin.json<{ error: { code: string } }>().error.code).toBe('LISTING_PIN_INVALID');
    expect(snapshot(machine.base)).toEqual(before);

    expect(machine.loadout('budget', 'unpin', 'skill-399', '--json').json<{ pins: string[] }>().pins).toEqual([]);
  });

  it('leaves out of Codex’s listing a skill whose agents/openai.yaml turns implicit invocation off, before and after apply', () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
    const skill = (name: string) => `---\nname: ${name}\ndescription: ${name} when asked\n---\nUse ${name}.\n`;
    const workspace = path.join(base, 'workspace');
    gitRepo(path.join(workspace, 'capabilities'), {
      skills: {
        listed: { 'SKILL.md': skill('listed') },
        allowed: { 'SKILL.md': skill('allowed'), agents: { 'openai.yaml': 'policy:\n  allow_implicit_invocation: true\n' } },
        explicit: { 'SKILL.md': skill('explicit'), agents: { 'openai.yaml': 'policy:\n  allow_implicit_invocation: false\n' } },
      },
    });
    const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, LOADOUT_DATA_DIR: path.join(base, 'data') });
    const codexNames = () => {
      const codex = runtimeOf(loadout('budget', '--runtime', 'codex', '--json').json<BudgetJson>(), 'codex');
      if (!codex.listing.observed) throw new Error(codex.listing.why);
      // Codex's own system skills come first; these are the workspace's.
      return codex.listing.entries.map((entry) => entry.name).filter((name) => ['listed', 'allowed', 'explicit'].includes(name));
    };
    // Planned (to be written from the skills), then written and read back from Codex's folder.
    expect(codexNames()).toEqual(['allowed', 'listed']);
    const applied = loadout('apply', '--runtime', 'codex', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.json<{ applied: boolean }>().applied).toBe(true);
    expect(codexNames()).toEqual(['allowed', 'listed']);
  });
});
