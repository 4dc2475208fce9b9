import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { CLAUDE_CODE_VERSIONS } from '@loadout/runtimes';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLAUDE_CODE_PINNED,
  type ClaudeCodeVersion,
  claudeListing,
  claudeOnPath,
  listedTwice,
  type PlanOutput,
  plannedRuntime,
  REAL_CLIENTS_MS,
} from './realClients.js';

afterEach(() => removeTestdirs());

/** A workspace whose owner has `skills`, a scratch home, and the pinned Claude Code `version` as the one on PATH. */
function machine(version: ClaudeCodeVersion, skills: readonly string[]) {
  const base = testdir({});
  const home = path.join(base, 'home');
  const work = path.join(home, 'work');
  fs.mkdirSync(work, { recursive: true });
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), {
    skills: Object.fromEntries(
      skills.map((name) => [name, { 'SKILL.md': `---\nname: ${name}\ndescription: Our own ${name}.\n---\nUse it.\n` }]),
    ),
  });
  const PATH = `${claudeOnPath(base, version)}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const loadout = (...args: string[]) => runCli(workspace, [...args, '--json'], { HOME: home, PATH });
  const claudePart = (plan: PlanOutput) => plannedRuntime(plan, 'claude-code');
  return { base, home, work, loadout, claudePart };
}

describe.each(CLAUDE_CODE_PINNED)('Claude Code %s as installed', (version) => {
  const facts = CLAUDE_CODE_VERSIONS.versions.find((entry) => entry.version === version);

  it(
    "the kept built-in names are exactly what the client's initialize answer lists on a fresh home",
    async () => {
      const home = testdir({ work: {} });
      const listing = await claudeListing(home, path.join(home, 'work'), {}, version);
      expect(listedTwice(listing.names)).toEqual([]);
      expect([...listing.names].sort()).toEqual([...(facts?.compiledIn?.names ?? [])].sort());
    },
    REAL_CLIENTS_MS,
  );

  it(
    'the plan reads the installed version, and plans its built-in names',
    () => {
      const m = machine(version, ['notes']);
      const plan = m.loadout('apply', '--dry-run', '--runtime', 'claude-code').json<PlanOutput>();
      const part = m.claudePart(plan);
      expect(part.client).toEqual({ binary: expect.stringContaining('claude'), version, plannedAs: version });
      expect(part.sameName).toBe(facts?.sameName);
      const builtIns = part.sees.filter((copy) => copy.state === 'compiled-in').map((copy) => copy.name);
      expect(builtIns.sort()).toEqual([...(facts?.compiledIn?.names ?? [])].sort());
    },
    REAL_CLIENTS_MS,
  );
});

describe('a skill named like a built-in is planned as the installed version behaves', () => {
  it(
    '2.1.197 lists both, so nothing is written and the client lists the name once',
    async () => {
      const m = machine('2.1.197', ['simplify', 'notes']);
      const applied = m.loadout('apply', '--runtime', 'claude-code');
      expect(applied.status).toBe(1);
      const part = m.claudePart(applied.json<PlanOutput>());
      expect(part.status).toBe('conflict');
      expect(part.findings.map((finding) => finding.code)).toContain('RUNTIME_CONFLICT');
      expect(fs.existsSync(path.join(m.home, '.claude/skills/simplify'))).toBe(false);
      const listing = await claudeListing(m.home, m.work, {}, '2.1.197');
      expect(listedTwice(listing.names)).toEqual([]);
      expect(new Set(listing.names)).toEqual(new Set(part.sees.map((copy) => copy.name)));
    },
    REAL_CLIENTS_MS,
  );

  it(
    "2.1.332 lets the user's skill replace the built-in: it is written, and the client lists exactly the plan",
    async () => {
      const m = machine('2.1.332', ['simplify', 'notes', 'review']);
      const applied = m.loadout('apply', '--runtime', 'claude-code');
      expect(applied.status, applied.stderr).toBe(0);
      const part = m.claudePart(applied.json<PlanOutput>());
      expect(part.status).toBe('ok');
      const simplify = part.sees.filter((copy) => copy.name === 'simplify');
      expect(simplify.map((copy) => copy.owner)).toEqual(['loadout']);
      expect(fs.existsSync(path.join(m.home, '.claude/skills/simplify/SKILL.md'))).toBe(true);
      const listing = await claudeListing(m.home, m.work, {}, '2.1.332');
      expect(listedTwice(listing.names)).toEqual([]);
      expect([...listing.names].sort()).toEqual(part.sees.map((copy) => copy.name).sort());
      expect(listing.names).toEqual(expect.arrayContaining(['simplify', 'notes', 'review']));

      const why = m.loadout('why', 'simplify').json<{ runtimes: { runtime: string; copies: { owner: string; state: string }[] }[] }>();
      expect(why.runtimes.find((entry) => entry.runtime === 'claude-code')?.copies.map((copy) => [copy.owner, copy.state])).toEqual([
        ['loadout', 'written'],
        ['builtin', 'compiled-in'],
      ]);
    },
    REAL_CLIENTS_MS,
  );
});
