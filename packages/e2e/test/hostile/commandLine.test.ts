import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { interpreterFor } from '@loadout/jobs';
import { removeTestdirs } from '@loadout/files/testing';
import { describeRunnableExtensions, RUNNABLE_EXTENSIONS } from '@loadout/tasks';
import { afterEach, describe, expect, it } from 'vitest';
import { loadout, skill, task, workspace } from './coreSupport.js';

/**
 * The command line against hostile or odd requests, and against its own claims: where exit
 * statuses are set, which error codes it prints, which extensions it says run. Each case names
 * the issue-11 item it covers.
 */

afterEach(removeTestdirs);

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const gated = `---\nname: pdf\ndescription: Reads PDFs.\ngates:\n  ocr: on\n---\nBody.\n`;

describe('hostile requests to the command line', () => {
  it('11.23 --gate __proto__=off is refused by name, never silently dropped', () => {
    const ws = workspace({ capabilities: { skills: { pdf: { 'SKILL.md': gated } } } });
    const run = loadout(ws.home, ['capability', 'set', 'skill/pdf', '--gate', '__proto__=off', '--json']);
    expect(run.status).toBe(1);
    expect(run.json<{ error: unknown; written: boolean }>()).toMatchObject({
      written: false,
      error: { code: 'STATE_GATE_UNDECLARED', message: 'skill/pdf: gate "__proto__" is not declared (declared: ocr)' },
    });
    expect(run.stderr).toBe('loadout: skill/pdf: gate "__proto__" is not declared (declared: ocr)\n');
    expect(fs.existsSync(path.join(ws.home, 'capabilities/config.json'))).toBe(false);
  });

  it("S5 a refused state change prints the writer's own code, not one the CLI made up", () => {
    const ws = workspace({ capabilities: { skills: { pdf: { 'SKILL.md': gated } } } });
    const unknown = loadout(ws.home, ['capability', 'set', 'skill/nope', '--disable', '--json']);
    expect(unknown.status).toBe(1);
    expect(unknown.json<{ error: { code: string } }>().error.code).toBe('STATE_CAPABILITY_UNKNOWN');
    const value = loadout(ws.home, ['capability', 'set', 'skill/pdf', '--gate', 'ocr=maybe', '--json']);
    expect(value.json<{ error: { code: string }; errors: { code: string }[] }>()).toMatchObject({
      error: { code: 'STATE_VALUE_INVALID' },
      errors: [{ code: 'STATE_VALUE_INVALID' }],
    });
  });
});

describe('what the command line says about itself', () => {
  it("S7 exit statuses are set in one place: CliContext (and `mcp run`, which passes on its server's own)", () => {
    const sources = path.join(REPOSITORY, 'packages/cli/src');
    const setters = fs
      .readdirSync(sources, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .filter((file) => /process\.exitCode\s*=/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(sources, file));
    // Unit tests beside the sources may put back a status they caused; they are not the command line.
    // `loadout mcp run` starts before the command line is loaded and exits with the status of the
    // server it started (its refusals: 2 for usage, 1 otherwise); every command's status is CliContext's.
    expect(setters.sort()).toEqual(['CliContext.ts', 'mcpRun.ts']);

    // And they still say what happened: a task that fails exits 1 with one line on stderr.
    const ws = workspace({
      capabilities: { tasks: { fails: task('Fails', 'echo partial\nexit 4\n') }, skills: { ok: { 'SKILL.md': skill('ok') } } },
    });
    const failed = loadout(ws.home, ['tasks', 'run', 'fails', '--project', ws.project, '--json']);
    expect(failed.status).toBe(1);
    expect(failed.json<{ status: string; exitCode: number }>()).toMatchObject({ status: 'failed', exitCode: 4 });
    expect(failed.stderr).toMatch(/^loadout: task fails failed: .*\n$/);
    expect(loadout(ws.home, ['tasks']).status).toBe(0);
    expect(loadout(ws.home, ['tasks', 'nope']).status).toBe(1);
  });

  it('S8 help, the runner, the screen and the docs name one list of runnable extensions', () => {
    expect(RUNNABLE_EXTENSIONS).toEqual(['.mjs', '.js', '.cjs', '.sh', '.py']);
    for (const extension of RUNNABLE_EXTENSIONS) expect(interpreterFor(`run${extension}`), extension).not.toBeNull();
    expect(interpreterFor('run.rb')).toBeNull();

    const help = loadout(REPOSITORY, ['tasks', 'create', '--help']);
    const sentence = describeRunnableExtensions();
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(sentence);
    for (const file of ['docs/owners.md', 'docs/decisions/server.md', 'packages/web/public/views/tasksView.js']) {
      expect(fs.readFileSync(path.join(REPOSITORY, file), 'utf8').replace(/\s+/g, ' '), file).toContain(sentence);
    }
  });
});
