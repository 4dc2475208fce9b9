import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { usageSpoolLineSchema } from '@loadout/usage';
import { afterEach, describe, expect, it } from 'vitest';
import { usageEvents } from '../usage-hook.mjs';
import { UsageHookConsent, usageHookCommand, usageHookProgram } from '../src/index.js';
import { UsageHookConsentInvalidError } from '../src/UsageHookConsent.js';

afterEach(() => removeTestdirs());

const PAYLOADS = path.join(import.meta.dirname, 'payloads');
const payload = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(PAYLOADS, `${name}.json`), 'utf8'));
const AT = '2026-12-05T14:00:00.000Z';

/** A line the ledger takes in: its own schema (packages/usage) is the contract between the two. */
function expectSpoolLine(line: unknown): void {
  const parsed = usageSpoolLineSchema.safeParse(line);
  expect(parsed.error?.issues ?? []).toEqual([]);
}

describe('what each runtime event records', () => {
  const session = '547e18aa-eaea-4f0b-b462-3602b679cdfa';
  const project = '/home/owner/work/app';
  it.each([
    ['claude-code-2.1.197.user-prompt-submit.command', { kind: 'command', name: 'hello', event: 'invoked' }],
    ['claude-code.post-tool-use.skill', { kind: 'skill', name: 'pdf-forms', event: 'invoked' }],
    ['claude-code.post-tool-use.agent', { kind: 'agent', name: 'code-reviewer', event: 'invoked' }],
    ['claude-code.post-tool-use.task', { kind: 'agent', name: 'test-writer', event: 'invoked' }],
    ['claude-code.post-tool-use.slash-command', { kind: 'command', name: 'review-kit:review', event: 'invoked' }],
    ['claude-code.post-tool-use-failure.mcp', { kind: 'tool', name: 'search_notes', server: 'notes', event: 'failed' }],
  ])('Claude Code %s', (name, expected) => {
    const lines = usageEvents(payload(name), 'claude-code', AT, undefined);
    expect(lines).toEqual([{ v: 1, at: AT, runtime: 'claude-code', project, session, ...expected }]);
    for (const line of lines) expectSpoolLine(line);
  });

  it.each([
    ['codex-0.171.0.post-tool-use.mcp', { kind: 'tool', name: 'search_notes', server: 'notes', event: 'invoked' }],
    ['codex-0.171.0.user-prompt-submit.command', { kind: 'command', name: 'ship', event: 'invoked' }],
  ])('Codex %s', (name, expected) => {
    const lines = usageEvents(payload(name), 'codex', AT, undefined);
    expect(lines).toEqual([{ v: 1, at: AT, runtime: 'codex', project, session: '019a0d2e-7c1b-7a40-9d59-2f0c4e6b1a11', ...expected }]);
    for (const line of lines) expectSpoolLine(line);
  });

  it('records nothing for a tool that is none of them, a prompt that is not a command, or input of another shape', () => {
    expect(usageEvents(payload('claude-code.post-tool-use.bash'), 'claude-code', AT, undefined)).toEqual([]);
    const prompt = (text: string) => ({ hook_event_name: 'UserPromptSubmit', cwd: '/p', prompt: text });
    expect(usageEvents(prompt('/usr/bin/env is broken'), 'claude-code', AT, undefined)).toEqual([]);
    expect(usageEvents(prompt('please /review this'), 'claude-code', AT, undefined)).toEqual([]);
    for (const odd of [null, 7, 'text', [], {}, { hook_event_name: 'PostToolUse', tool_name: 5 }, { hook_event_name: 'Stop' }])
      expect(usageEvents(odd, 'claude-code', AT, undefined)).toEqual([]);
    // A name too long to be one is not recorded; a relative cwd is no project.
    const long = { hook_event_name: 'PostToolUse', tool_name: 'Skill', tool_input: { skill: 'x'.repeat(201) } };
    expect(usageEvents(long, 'claude-code', AT, undefined)).toEqual([]);
    const relative = { hook_event_name: 'PostToolUse', tool_name: 'Skill', cwd: 'work', tool_input: { skill: 'notes' } };
    expect(usageEvents(relative, 'claude-code', AT, undefined)).toEqual([
      { v: 1, at: AT, runtime: 'claude-code', project: null, kind: 'skill', name: 'notes', event: 'invoked' },
    ]);
  });

  it("takes Claude Code's project folder over the working folder", () => {
    const [line] = usageEvents(payload('claude-code.post-tool-use.skill'), 'claude-code', AT, '/home/owner/work');
    expect(line?.project).toBe('/home/owner/work');
  });
});

/** Runs the hook program as a runtime does: the command line through sh, the event on stdin. */
function runHook(command: string, input: string | Buffer, env: NodeJS.ProcessEnv = {}) {
  return spawnSync('/bin/sh', ['-c', command], { input, encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 10_000 });
}

describe('the hook program', () => {
  const spoolOf = (dataDir: string, runtime: string) => path.join(dataDir, 'usage', 'spool', `${runtime}.jsonl`);
  const linesOf = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);

  it('appends one line per event, prints nothing and exits 0', () => {
    const dataDir = path.join(testdir(), 'data with space');
    UsageHookConsent.read(dataDir).with(['claude-code'], true);
    const command = usageHookCommand('claude-code', dataDir);
    for (const name of ['claude-code.post-tool-use.skill', 'claude-code.post-tool-use.bash', 'claude-code.post-tool-use-failure.mcp']) {
      const run = runHook(command, fs.readFileSync(path.join(PAYLOADS, `${name}.json`)));
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
    }
    const lines = linesOf(spoolOf(dataDir, 'claude-code'));
    expect(lines.map((line) => (line as { name: string }).name)).toEqual(['pdf-forms', 'search_notes']);
    for (const line of lines) expectSpoolLine(line);
  });

  it('records nothing for a runtime the owner has not turned on, or once turned off', () => {
    const dataDir = testdir();
    const skill = fs.readFileSync(path.join(PAYLOADS, 'claude-code.post-tool-use.skill.json'));
    expect(runHook(usageHookCommand('claude-code', dataDir), skill).status).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'usage'))).toBe(false);
    UsageHookConsent.read(dataDir).with(['claude-code', 'codex'], true).with(['claude-code'], false);
    expect(runHook(usageHookCommand('claude-code', dataDir), skill).status).toBe(0);
    expect(fs.existsSync(spoolOf(dataDir, 'claude-code'))).toBe(false);
  });

  it('exits 0 quietly on bad input, bad arguments, an unwritable spool, and input past its bound', () => {
    const dataDir = testdir();
    UsageHookConsent.read(dataDir).with(['claude-code'], true);
    const program = usageHookProgram();
    const node = process.execPath;
    const quiet = (run: ReturnType<typeof runHook>) => expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
    quiet(runHook(`${node} ${program} ${dataDir}/usage claude-code`, 'not json {'));
    quiet(runHook(`${node} ${program} relative/usage claude-code`, '{}'));
    quiet(runHook(`${node} ${program} ${dataDir}/usage '../escape'`, '{}'));
    quiet(runHook(`${node} ${program}`, ''));
    // A tool response past the read bound: the name and input before it are still recorded.
    const big = JSON.stringify({
      session_id: 's',
      cwd: '/p',
      hook_event_name: 'PostToolUse',
      tool_name: 'mcp__files__read',
      tool_input: { path: 'a' },
      tool_response: 'x'.repeat(3 * 1024 * 1024),
    });
    quiet(runHook(`${node} ${program} ${dataDir}/usage claude-code`, big));
    expect(linesOf(spoolOf(dataDir, 'claude-code'))).toEqual([expect.objectContaining({ kind: 'tool', server: 'files', name: 'read' })]);
    // The spool is a folder where the file should be: nothing is written, nothing is said.
    fs.rmSync(spoolOf(dataDir, 'claude-code'));
    fs.mkdirSync(spoolOf(dataDir, 'claude-code'));
    quiet(
      runHook(
        `${node} ${program} ${dataDir}/usage claude-code`,
        fs.readFileSync(path.join(PAYLOADS, 'claude-code.post-tool-use.skill.json')),
      ),
    );
  });

  it('never runs what its input names', () => {
    const dataDir = testdir();
    UsageHookConsent.read(dataDir).with(['claude-code'], true);
    const marker = path.join(dataDir, 'ran');
    const hostile = { hook_event_name: 'UserPromptSubmit', cwd: '/p', prompt: `/x$(touch ${marker}) \`touch ${marker}\`` };
    const run = runHook(usageHookCommand('claude-code', dataDir), JSON.stringify(hostile));
    expect(run.status).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    // `/x$(…` is not a command name: nothing recorded either.
    expect(fs.existsSync(spoolOf(dataDir, 'claude-code'))).toBe(false);
  });
});

describe("the owner's consent", () => {
  it('is off without a file, remembered per runtime, and a file of another shape is a coded error', () => {
    const dataDir = testdir();
    expect(UsageHookConsent.read(dataDir).runtimes).toEqual([]);
    UsageHookConsent.read(dataDir).with(['codex', 'claude-code'], true);
    expect(UsageHookConsent.read(dataDir).runtimes).toEqual(['claude-code', 'codex']);
    expect(UsageHookConsent.read(dataDir).isOn('codex')).toBe(true);
    fs.writeFileSync(path.join(dataDir, 'usage', 'hook.json'), '{"version":2}');
    expect(() => UsageHookConsent.read(dataDir)).toThrow(UsageHookConsentInvalidError);
  });
});
