import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { USAGE_SPOOL_FOLDER, type UsageReport } from '@loadout/usage';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from '../server/support.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  removeTestdirs();
});

/** Skills in this fixture: 40 descriptions of 1,000 characters are past Claude Code's 30,000-character listing budget. */
const SKILLS = 40;
/** The last skill in listing order: without a use, past the budget and listed by name only. */
const LAST = `skill-${String(SKILLS - 1).padStart(2, '0')}`;

/** A machine with Claude Code's and Codex's folders in a scratch home, and a workspace whose skills overflow Claude Code's listing. */
function overflowingWorkspace() {
  const base = testdir({});
  const home = path.join(base, 'home');
  for (const folder of ['.claude', '.codex']) fs.mkdirSync(path.join(home, folder), { recursive: true });
  const skills: Record<string, TreeDescription> = {};
  for (let index = 0; index < SKILLS; index += 1) {
    const name = `skill-${String(index).padStart(2, '0')}`;
    const description = `Use ${name} when the owner asks for it. ${'It renders charts from tables. '.repeat(40)}`.slice(0, 1000).trim();
    skills[name] = { 'SKILL.md': `---\nname: ${name}\ndescription: ${description}\n---\nUse ${name}.\n` };
  }
  const workspace = path.join(base, 'workspace');
  gitRepo(path.join(workspace, 'capabilities'), { skills });
  const data = path.join(base, 'data');
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, LOADOUT_DATA_DIR: data });
  return { base, home, workspace, data, loadout };
}

/** One use of `name` by Claude Code, as its hook leaves it in the spool. */
function spoolUse(data: string, name: string): void {
  const spool = path.join(data, USAGE_SPOOL_FOLDER);
  fs.mkdirSync(spool, { recursive: true });
  const line = {
    v: 1,
    at: new Date(Date.now() - 60_000).toISOString(),
    runtime: 'claude-code',
    project: null,
    kind: 'skill',
    name,
    event: 'invoked',
    session: 'cc-1',
  };
  fs.appendFileSync(path.join(spool, 'claude-code.jsonl'), `${JSON.stringify(line)}\n`);
}

interface BudgetEntry {
  name: string;
  status: string;
  lastUsed?: number;
}
interface BudgetJson {
  usageProblem: string | null;
  runtimes: { runtime: string; summary: string; listing: { observed: boolean; entries?: BudgetEntry[] } }[];
}

function claudeEntry(report: BudgetJson, name: string): BudgetEntry | undefined {
  return report.runtimes.find((runtime) => runtime.runtime === 'claude-code')?.listing.entries?.find((entry) => entry.name === name);
}

const skillEntry = (report: UsageReport, id: string) => report.capabilities.find((item) => item.kind === 'skill' && item.id === id);

describe('the ledger and the listing-budget planner, joined', () => {
  it('loadout usage says how each runtime lists a skill, and suggests pinning one listed by name only and never used', () => {
    const machine = overflowingWorkspace();
    const run = machine.loadout('usage', '--json');
    expect(run.status, run.stderr).toBe(0);
    const report = run.json<UsageReport>();
    expect(report.listingProblem).toBeNull();
    expect(skillEntry(report, 'skill-00')?.listed).toContainEqual({ runtime: 'claude-code', client: 'Claude Code', status: 'described' });
    expect(skillEntry(report, LAST)?.listed).toContainEqual({ runtime: 'claude-code', client: 'Claude Code', status: 'name-only' });
    // Codex's rules are measured too: it is in every skill's list, whatever it does with it.
    expect(
      skillEntry(report, LAST)
        ?.listed?.map((listed) => listed.runtime)
        .sort(),
    ).toEqual(['claude-code', 'codex']);
    expect(report.suggestions).toContainEqual(
      expect.objectContaining({
        kind: 'skill',
        id: LAST,
        reason: 'listed-by-name-only',
        message: expect.stringMatching(
          new RegExp(
            `^skill ${LAST}: listed by name only in Claude Code and never used in 30 days — pin it \\(\`loadout budget pin ${LAST}\`\\) or shorten its description$`,
          ),
        ),
        command: `loadout budget pin ${LAST}`,
      }),
    );
    expect(report.suggestions.some((suggestion) => suggestion.id === 'skill-00' && suggestion.reason === 'listed-by-name-only')).toBe(
      false,
    );

    const text = machine.loadout('usage');
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^skill/${LAST} .*listed by name only in Claude Code`, 'm'));

    // A runtime the planner does not know (an MCP client's own name) predicts no listing: none is said.
    const narrowed = machine.loadout('usage', '--runtime', 'loadout-e2e', '--json').json<UsageReport>();
    expect(skillEntry(narrowed, LAST)?.listed).toEqual([]);
  });

  it('a use the ledger holds ranks the skill described in budget, apply --dry-run and why, and a ledger that cannot be read is a finding', () => {
    const machine = overflowingWorkspace();
    const unused = machine.loadout('budget', '--runtime', 'claude-code', '--json');
    expect(unused.status, unused.stderr).toBe(0);
    expect(claudeEntry(unused.json<BudgetJson>(), LAST)).toMatchObject({ status: 'name-only' });
    expect(unused.json<BudgetJson>().usageProblem).toBeNull();

    spoolUse(machine.data, LAST);
    // `loadout usage` takes the spool in; the budget reads only what the ledger holds.
    const usage = machine.loadout('usage', '--json').json<UsageReport>();
    expect(skillEntry(usage, LAST)).toMatchObject({
      invoked: 1,
      listed: expect.arrayContaining([{ runtime: 'claude-code', client: 'Claude Code', status: 'described' }]),
    });
    expect(usage.suggestions.some((suggestion) => suggestion.id === LAST && suggestion.reason === 'listed-by-name-only')).toBe(false);

    const ranked = machine.loadout('budget', '--runtime', 'claude-code', '--json').json<BudgetJson>();
    expect(claudeEntry(ranked, LAST)).toMatchObject({ status: 'described', lastUsed: expect.any(Number) });
    // Room is made for it: a skill described before, unused, now goes by name only.
    const describedBefore = (unused.json<BudgetJson>().runtimes[0]?.listing.entries ?? []).filter((entry) => entry.status === 'described');
    expect(describedBefore.some((entry) => claudeEntry(ranked, entry.name)?.status === 'name-only')).toBe(true);
    const why = machine.loadout('why', LAST, '--json').json<{ runtimes: { runtime: string; listing: string | null }[] }>();
    expect(why.runtimes.find((runtime) => runtime.runtime === 'claude-code')?.listing).toMatch(
      /^listed with its description \(last used \d{4}-\d\d-\d\d\)$/,
    );
    const dryRun = machine.loadout('apply', '--dry-run', '--runtime', 'claude-code', '--json');
    expect(dryRun.status, dryRun.stderr).toBe(0);
    const summary = unused.json<BudgetJson>().runtimes.find((runtime) => runtime.runtime === 'claude-code')?.summary;
    expect(dryRun.json<{ listings: string[] }>().listings).toEqual([summary]);

    // The ledger's table gone (a damaged database): budget, why and the dry run still answer, and say so.
    const db = new BetterSqlite3(path.join(machine.data, 'loadout.db'));
    db.exec('DROP TABLE usage_events');
    db.close();
    const broken = machine.loadout('budget', '--runtime', 'claude-code', '--json');
    expect(broken.status, broken.stderr).toBe(0);
    expect(broken.json<BudgetJson>().usageProblem).toMatch(
      /^the usage ledger could not be read \(.*usage_events.*\); listed as if no skill was used$/,
    );
    expect(claudeEntry(broken.json<BudgetJson>(), LAST)).toMatchObject({ status: 'name-only' });
    const brokenDryRun = machine.loadout('apply', '--dry-run', '--runtime', 'claude-code');
    expect(brokenDryRun.status, brokenDryRun.stderr).toBe(0);
    expect(brokenDryRun.stdout).toMatch(/^the usage ledger could not be read/m);
    const brokenWhy = machine.loadout('why', LAST);
    expect(brokenWhy.status, brokenWhy.stderr).toBe(0);
    expect(brokenWhy.stdout).toMatch(/listed without description/);
  });
});

describe('GET /api/usage', () => {
  it('carries how each runtime lists each skill', async () => {
    const server = await TestServer.start();
    servers.push(server);
    const answer = await server.request('GET', '/api/usage?since=7d');
    expect(answer.status).toBe(200);
    const report = answer.body as UsageReport;
    expect(report.listingProblem).toBeNull();
    const skills = report.capabilities.filter((item) => item.kind === 'skill');
    expect(skills.length).toBeGreaterThan(0);
    // Each runtime that sees a skill says how it lists it; within the budget, every one is described.
    expect(skills.some((skill) => (skill.listed ?? []).length > 0)).toBe(true);
    for (const skill of skills)
      for (const listed of skill.listed ?? [])
        expect(listed).toMatchObject({ runtime: expect.stringMatching(/^(claude-code|codex)$/), status: 'described' });
    expect(report.capabilities.filter((item) => item.kind !== 'skill').every((item) => item.listed === null)).toBe(true);
  });
});
