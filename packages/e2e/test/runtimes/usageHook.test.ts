import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSubmitPrompt, REAL_CLIENTS_MS } from './realClients.js';

// Issue 36, the usage hook: turned on, `apply` writes it into Claude Code's settings beside the
// user's own hooks; the exact command line written, fed the events Claude Code sends (captured from
// its documentation and from its own run), appends a spool line; the real client runs it on a
// typed `/command`. Turned off: the entry is gone, the real client runs nothing of Loadout's and
// nothing is recorded.

afterEach(() => removeTestdirs());

const PAYLOADS = path.resolve(import.meta.dirname, '../../../usage-hook/test/payloads');

/** The owner's own settings: a UserPromptSubmit hook of theirs, which also tells the test a prompt was submitted. */
const userSettings = (marker: string) => `{
  "theme": "dark",
  "hooks": {
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "touch ${marker}" }] }]
  }
}
`;

interface HookGroup {
  matcher?: string;
  hooks: { type: string; command: string }[];
}

function fixture() {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  const project = gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' });
  gitRepo(path.join(workspace, 'capabilities'), { 'README.md': 'mine\n' });
  const marker = path.join(base, 'prompted');
  const settingsFile = path.join(home, '.claude', 'settings.json');
  fs.mkdirSync(path.join(home, '.claude', 'commands'), { recursive: true });
  fs.writeFileSync(settingsFile, userSettings(marker));
  // A command of the user's own, so Claude Code accepts `/hello` as a prompt.
  fs.writeFileSync(path.join(home, '.claude', 'commands', 'hello.md'), '---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.\n');
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home });
  const apply = () => {
    const run = loadout('apply', '--project', project, '--runtime', 'claude-code', '--json');
    expect(run.status, run.stderr).toBe(0);
    return run.json<{ runtimes: { changes: { kind: string; action: string; name: string }[] }[] }>();
  };
  const spool = () => {
    const dataDir = loadout('usage', 'hook', '--json').json<{ spool: string }>().spool;
    return path.join(dataDir, 'claude-code.jsonl');
  };
  const hooks = () => (JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, HookGroup[]> }).hooks;
  return { base, home, project, marker, settingsFile, loadout, apply, spool, hooks };
}

const spoolLines = (file: string) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];

describe('the usage hook in the real Claude Code', () => {
  it(
    'on: apply writes it, the command it wrote records what the events name, and the real client runs it on a typed command; off: gone and nothing recorded',
    async () => {
      const { home, project, marker, settingsFile, loadout, apply, spool, hooks } = fixture();
      const before = fs.readFileSync(settingsFile, 'utf8');
      // A runtime Loadout writes no hooks into, or one it does not know, is refused with its code, and nothing is remembered.
      const refused = (runtime: string) => loadout('usage', 'hook', 'on', runtime, '--json');
      expect(refused('gemini-cli').json<{ error: { code: string } }>().error.code).toBe('USAGE_HOOK_UNSUPPORTED');
      expect(refused('nope').json<{ error: { code: string } }>().error.code).toBe('RUNTIME_UNKNOWN');
      expect(
        loadout('usage', 'hook', '--json')
          .json<{ runtimes: { on: boolean }[] }>()
          .runtimes.some((entry) => entry.on),
      ).toBe(false);
      expect(loadout('usage', 'hook', 'on', 'claude-code').status).toBe(0);
      const applied = apply();
      expect(applied.runtimes[0]?.changes.filter((change) => change.name === 'loadout:usage').map((change) => change.action)).toEqual([
        'create',
        'create',
        'create',
      ]);
      const written = hooks();
      // The user's own hook is first and untouched; Loadout's follows it.
      expect(written.UserPromptSubmit?.[0]).toEqual({ hooks: [{ type: 'command', command: `touch ${marker}` }] });
      const command = written.PostToolUse?.[0]?.hooks[0]?.command as string;
      expect(written.UserPromptSubmit?.[1]?.hooks[0]?.command).toBe(command);

      // The exact command line apply wrote, run as Claude Code runs it, fed what Claude Code sends.
      for (const name of ['claude-code.post-tool-use.skill', 'claude-code.post-tool-use.agent', 'claude-code.post-tool-use-failure.mcp']) {
        const run = spawnSync('/bin/sh', ['-c', command], {
          input: fs.readFileSync(path.join(PAYLOADS, `${name}.json`)),
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HOME: home },
        });
        expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
      }
      const fed = spoolLines(spool());
      expect(fed).toEqual([
        expect.objectContaining({
          v: 1,
          runtime: 'claude-code',
          kind: 'skill',
          name: 'pdf-forms',
          event: 'invoked',
          project: '/home/owner/work/app',
        }),
        expect.objectContaining({ kind: 'agent', name: 'code-reviewer', event: 'invoked' }),
        expect.objectContaining({ kind: 'tool', server: 'notes', name: 'search_notes', event: 'failed' }),
      ]);

      // The real client: a typed `/hello` reaches the hook before any model would be asked.
      fs.rmSync(spool());
      const recorded = await claudeSubmitPrompt(home, project, '/hello there', () => spoolLines(spool()).length > 0);
      expect(recorded).toBe(true);
      expect(spoolLines(spool())).toEqual([
        {
          v: 1,
          at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          runtime: 'claude-code',
          project,
          kind: 'command',
          name: 'hello',
          event: 'invoked',
          session: expect.any(String),
        },
      ]);
      expect(fs.existsSync(marker)).toBe(true);

      // Off: the next apply takes every entry out, byte for byte, and the real client records nothing.
      expect(loadout('usage', 'hook', 'off').status).toBe(0);
      apply();
      expect(fs.readFileSync(settingsFile, 'utf8')).toBe(before);
      fs.rmSync(spool());
      fs.rmSync(marker);
      // The user's hook says the prompt was submitted; the usage hook, had it run, ends within its own 2 s bound.
      expect(await claudeSubmitPrompt(home, project, '/hello again', () => fs.existsSync(marker))).toBe(true);
      await new Promise((wake) => setTimeout(wake, 2500));
      expect(fs.existsSync(spool())).toBe(false);
    },
    REAL_CLIENTS_MS * 2,
  );
});
