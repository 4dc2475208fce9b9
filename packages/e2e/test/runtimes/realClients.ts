import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_MODULES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules');
/** The pinned clients' executables (dev dependencies of this package). */
const BIN = path.join(PACKAGE_MODULES, '.bin');

/**
 * The two pinned Claude Code versions' executables, by version. Both packages name their command
 * `claude`, so `.bin/claude` is either one: each is taken from its own package folder instead.
 */
export const CLAUDE_CODE_BINARIES = {
  '2.1.197': path.join(PACKAGE_MODULES, '@anthropic-ai/claude-code/bin/claude.exe'),
  '2.1.332': path.join(PACKAGE_MODULES, 'claude-code-newest/bin/claude.exe'),
} as const;
export type ClaudeCodeVersion = keyof typeof CLAUDE_CODE_BINARIES;
export const CLAUDE_CODE_PINNED = Object.keys(CLAUDE_CODE_BINARIES) as ClaudeCodeVersion[];

/** The executable of a command: a Claude Code version by its own folder, anything else from `.bin`. */
function executable(command: string): string {
  return command in CLAUDE_CODE_BINARIES ? CLAUDE_CODE_BINARIES[command as ClaudeCodeVersion] : path.join(BIN, command);
}

/**
 * A folder holding `claude`, a link to the pinned version given: put first on `PATH`, Loadout finds
 * that version as the installed client.
 */
export function claudeOnPath(base: string, version: ClaudeCodeVersion): string {
  const bin = path.join(base, `claude-${version}-bin`);
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(CLAUDE_CODE_BINARIES[version], path.join(bin, 'claude'));
  return bin;
}

/**
 * The environment a client runs in: a scratch home, no CLAUDE_CONFIG_DIR or CODEX_HOME unless a
 * test sets them, no credentials, and Claude Code's API pointed at a closed local port so nothing
 * ever leaves the machine. No model is called: each question below is answered before any would be.
 */
function clientEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    DISABLE_AUTOUPDATER: '1',
    ...extra,
  };
}

/**
 * Runs a client with `input` on stdin; resolves with stdout once it exits or `done(stdout)` says
 * enough. A server (`keepInputOpen`) stops at the end of its input, so its stdin stays open.
 */
function talk(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input: string; done?: (stdout: string) => boolean; keepInputOpen?: boolean },
): Promise<string> {
  return new Promise((finish, fail) => {
    const child = spawn(executable(command), args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const timer = setTimeout(() => end(new Error(`${command} did not answer in time: ${stderr.slice(-500)}`)), 60_000);
    const end = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const report = (): void => (error === undefined ? finish(stdout) : fail(error));
      if (child.exitCode !== null || child.signalCode !== null) {
        report();
        return;
      }
      child.once('exit', report);
      child.kill('SIGTERM');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.done?.(stdout) === true) end();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => end(error));
    child.on('close', () => end());
    if (options.keepInputOpen === true) child.stdin.write(options.input);
    else child.stdin.end(options.input);
  });
}

/** The lines of `text` that are finished (followed by a newline). */
function completeLines(text: string): string[] {
  return text.split('\n').slice(0, -1);
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What Claude Code lists in a folder: every command and skill of the SDK `initialize` answer, and its skill-loading log lines. */
export interface ClaudeListing {
  readonly names: string[];
  /** `Loading skills from: managed=…, user=…, project=[…]` */
  readonly loadingFrom: string;
  /** `Loaded N unique skills (…)` */
  readonly loaded: string;
}

/**
 * Asks Claude Code which skills it loads when started in `cwd`: only the SDK `initialize` control
 * request is sent to `claude -p` in stream-json mode, and the answer lists every command. `args`
 * go on its command line (`--plugin-dir DIR` loads a plugin natively for that one start).
 */
export async function claudeListing(
  home: string,
  cwd: string,
  extra: Record<string, string> = {},
  version: ClaudeCodeVersion = '2.1.197',
  args: readonly string[] = [],
): Promise<ClaudeListing> {
  const debug = path.join(home, `claude-debug-${process.pid}-${Date.now()}.log`);
  const request = JSON.stringify({ type: 'control_request', request_id: 'loadout', request: { subtype: 'initialize' } });
  const stdout = await talk(
    version,
    ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--debug-file', debug, ...args],
    {
      cwd,
      env: clientEnv(home, extra),
      input: `${request}\n`,
      done: (text) => completeLines(text).some((line) => line.includes('"control_response"')),
    },
  );
  const answer = jsonLines(stdout).find((line) => line.type === 'control_response') as
    | { response: { response: { commands: { name: string }[] } } }
    | undefined;
  if (answer === undefined) throw new Error(`claude gave no initialize answer: ${stdout.slice(0, 500)}`);
  const log = fs.existsSync(debug) ? fs.readFileSync(debug, 'utf8') : '';
  fs.rmSync(debug, { force: true });
  return {
    names: answer.response.response.commands.map((command) => command.name),
    loadingFrom: /Loading skills from: .*/.exec(log)?.[0] ?? '',
    loaded: /Loaded \d+ unique skills.*/.exec(log)?.[0] ?? '',
  };
}

/**
 * The MCP servers of a Claude Code session started in `cwd`, with their status as the session
 * itself reports them in its first line (`system`/`init`): `disabled` for a server the project
 * leaves off, `failed`, `pending` or `connected` otherwise. It is stopped once that line is out:
 * the API is a closed local port, so no model is asked. Both pinned versions report it; only
 * 2.1.332's `claude mcp list` shows a disabled server as such.
 */
export async function claudeSessionServers(home: string, cwd: string, version: ClaudeCodeVersion): Promise<Record<string, string>> {
  const isInit = (line: Record<string, unknown>): boolean => line.type === 'system' && line.subtype === 'init';
  const stdout = await talk(version, ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], {
    cwd,
    env: clientEnv(home, { ANTHROPIC_API_KEY: 'loadout-offline-test' }),
    input: '',
    done: (text) => jsonLines(completeLines(text).join('\n')).some(isInit),
  });
  const init = jsonLines(stdout).find(isInit) as { mcp_servers?: { name: string; status: string }[] } | undefined;
  if (init === undefined) throw new Error(`claude gave no init line: ${stdout.slice(0, 500)}`);
  return Object.fromEntries((init.mcp_servers ?? []).map((server) => [server.name, server.status]));
}

/** The commands and subagents Claude Code's SDK `initialize` answer lists. */
export interface ClaudeStart {
  readonly commands: string[];
  readonly agents: string[];
}

/**
 * Starts a Claude Code session in `cwd` as an SDK would: `claude -p` fed only the `initialize`
 * request, left to end by itself when its input ends, so the session's `SessionStart` hooks have
 * run by the time this resolves. Resolves with the commands and subagents its answer lists.
 */
export async function claudeStart(
  home: string,
  cwd: string,
  version: ClaudeCodeVersion = '2.1.197',
  args: readonly string[] = [],
): Promise<ClaudeStart> {
  const request = JSON.stringify({ type: 'control_request', request_id: 'loadout', request: { subtype: 'initialize' } });
  const stdout = await talk(version, ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args], {
    cwd,
    env: clientEnv(home, {}),
    input: `${request}\n`,
  });
  const answer = jsonLines(stdout).find((line) => line.type === 'control_response') as
    | { response: { response: { commands: { name: string }[]; agents: { name: string }[] } } }
    | undefined;
  if (answer === undefined) throw new Error(`claude gave no initialize answer: ${stdout.slice(0, 500)}`);
  return {
    commands: answer.response.response.commands.map((command) => command.name),
    agents: answer.response.response.agents.map((agent) => agent.name),
  };
}

/**
 * Submits `prompt` to `claude -p` and stops the client once `until()` holds (polled), or after
 * `waitMs`. No model answers (the API is a closed port): Claude Code runs its UserPromptSubmit
 * hooks on the prompt before it would call one, then keeps retrying, so it is stopped here.
 */
export async function claudeSubmitPrompt(
  home: string,
  cwd: string,
  prompt: string,
  until: () => boolean,
  version: ClaudeCodeVersion = '2.1.197',
  waitMs = 60_000,
): Promise<boolean> {
  const child = spawn(executable(version), ['-p', prompt, '--output-format', 'json'], {
    cwd,
    env: clientEnv(home, {}),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const started = Date.now();
  try {
    while (!until()) {
      if (Date.now() - started > waitMs || child.exitCode !== null) return until();
      await new Promise((wake) => setTimeout(wake, 100));
    }
    return true;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** One hook as Codex's app server lists it. */
export interface CodexHook {
  readonly eventName: string;
  readonly command: string | null;
  readonly sourcePath: string;
  readonly source: string;
}

/** The hooks Codex's app server (`hooks/list`, no model involved) says it runs in `cwd`, with its warnings and errors. */
export async function codexHooks(home: string, cwd: string): Promise<{ hooks: CodexHook[]; problems: unknown[] }> {
  const messages = [
    { id: 1, method: 'initialize', params: { clientInfo: { name: 'loadout-e2e', title: 'loadout-e2e', version: '0' } } },
    { method: 'initialized' },
    { id: 2, method: 'hooks/list', params: { cwds: [cwd] } },
  ];
  const stdout = await talk('codex', ['app-server'], {
    cwd,
    env: clientEnv(home, {}),
    input: `${messages.map((message) => JSON.stringify(message)).join('\n')}\n`,
    done: (text) => completeLines(text).some((line) => line.startsWith('{"id":2,')),
    keepInputOpen: true,
  });
  const listed = jsonLines(stdout).find((line) => line.id === 2) as
    | { result: { data: { hooks: CodexHook[]; warnings: unknown[]; errors: unknown[] }[] } }
    | undefined;
  if (listed === undefined) throw new Error(`codex app-server gave no hooks/list answer: ${stdout.slice(0, 500)}`);
  const data = listed.result.data[0];
  return { hooks: data?.hooks ?? [], problems: [...(data?.warnings ?? []), ...(data?.errors ?? [])] };
}

/** One skill as Codex's app server lists it. */
export interface CodexSkill {
  readonly name: string;
  readonly scope: string;
  readonly path: string;
}

/** What Codex loads for a folder, with the errors it reports for folders it refuses, and its home. */
export interface CodexListing {
  readonly skills: CodexSkill[];
  readonly errors: unknown[];
  readonly codexHome: string;
}

/**
 * Asks Codex's app server (JSON-RPC on stdio, no model involved) for `skills/list` in `cwd`: every
 * skill it loads, those its prompt hides included, with their scope, and the load errors.
 */
export async function codexListing(home: string, cwd: string, extra: Record<string, string> = {}): Promise<CodexListing> {
  const messages = [
    { id: 1, method: 'initialize', params: { clientInfo: { name: 'loadout-e2e', title: 'loadout-e2e', version: '0' } } },
    { method: 'initialized' },
    { id: 2, method: 'skills/list', params: { cwds: [cwd] } },
  ];
  const stdout = await talk('codex', ['app-server'], {
    cwd,
    env: clientEnv(home, extra),
    input: messages.map((message) => JSON.stringify(message)).join('\n') + '\n',
    done: (text) => completeLines(text).some((line) => line.startsWith('{"id":2,')),
    keepInputOpen: true,
  });
  const lines = jsonLines(stdout);
  const initialized = lines.find((line) => line.id === 1) as { result: { codexHome: string } } | undefined;
  const listed = lines.find((line) => line.id === 2) as { result: { data: { skills: CodexSkill[]; errors?: unknown[] }[] } } | undefined;
  if (initialized === undefined || listed === undefined)
    throw new Error(`codex app-server gave no skills/list answer: ${stdout.slice(0, 500)}`);
  const data = listed.result.data[0];
  return { skills: data?.skills ?? [], errors: data?.errors ?? [], codexHome: initialized.result.codexHome };
}

/** The skill names Codex puts into the model's prompt (`codex debug prompt-input`), in its order. */
export function codexPromptSkillNames(home: string, cwd: string): string[] {
  const result = spawnSync(path.join(BIN, 'codex'), ['debug', 'prompt-input', 'hi'], {
    cwd,
    env: clientEnv(home, {}),
    encoding: 'utf8',
    timeout: 60_000,
  });
  const input = JSON.parse(result.stdout) as { content?: ({ text?: string } | string)[] }[];
  for (const message of input) {
    for (const part of message.content ?? []) {
      const text = typeof part === 'string' ? part : (part.text ?? '');
      if (!text.includes('<skills_instructions>')) continue;
      return text
        .split('\n')
        .filter((line) => line.startsWith('- ') && line.includes('(file: '))
        .map((line) => line.slice(2, line.indexOf(':')));
    }
  }
  return [];
}

/** `skills-ref validate DIR`: the Agent Skills reference validator's verdict. */
export function skillsRefValidate(dir: string): { ok: boolean; output: string } {
  const result = spawnSync(path.join(BIN, 'skills-ref'), ['validate', dir], { encoding: 'utf8', timeout: 60_000 });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** The names that occur more than once. */
export function listedTwice(names: readonly string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

/**
 * Runs a client's own command (`plugin install …`) with a scratch home, as a user would type it;
 * Claude Code by its pinned version. Throws with the output when it fails.
 */
export function clientCommand(client: ClaudeCodeVersion | 'codex', home: string, cwd: string, args: readonly string[]): string {
  const result = spawnSync(executable(client), args, {
    cwd,
    env: clientEnv(home, {}),
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`${client} ${args.join(' ')} failed (${result.status}): ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** What a client's MCP command printed, and how it exited. */
export interface McpCommandRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `claude mcp …` (2.1.197 unless a version is named) or `codex mcp …` (`get NAME`, `list --json` …) in `cwd` with a scratch home:
 * what the client itself makes of the configuration files. `claude mcp get` starts the server to
 * check it (no model is involved); `codex mcp` reads the files only.
 */
export function clientMcp(
  client: 'claude' | ClaudeCodeVersion | 'codex',
  home: string,
  cwd: string,
  args: readonly string[],
): McpCommandRun {
  const result = spawnSync(executable(client === 'claude' ? '2.1.197' : client), ['mcp', ...args], {
    cwd,
    env: clientEnv(home, {}),
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A test that starts the real clients several times: a busy machine needs more than the default 30 s. */
export const REAL_CLIENTS_MS = 120_000;

/** One runtime of `loadout apply --json`, the fields these tests read. */
export interface PlannedRuntime {
  runtime: string;
  status: string;
  sameName: string;
  client: { binary: string; version: string | null; plannedAs: string | null } | null;
  changes: { action: string; name: string; reason: string }[];
  sees: { name: string; owner: string; state: string }[];
  findings: { code: string; message: string }[];
}

/** `loadout apply --json`'s output, the fields these tests read. */
export interface PlanOutput {
  runtimes: PlannedRuntime[];
}

/** A runtime's part of `loadout apply --json`'s output; throws when it is not there. */
export function plannedRuntime(plan: PlanOutput, runtime: string): PlannedRuntime {
  const found = plan.runtimes.find((entry) => entry.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the plan`);
  return found;
}

/** One entry of Codex's model-visible skill list: its name and the description characters it shows. */
export interface CodexListedSkill {
  readonly name: string;
  readonly shownChars: number;
}

/**
 * Every entry of the skill list Codex puts into the model's prompt (`codex debug prompt-input`,
 * no model called), in its order, with how many description characters each shows (0: listed by
 * name only).
 */
export function codexPromptListing(home: string, cwd: string): CodexListedSkill[] {
  const result = spawnSync(path.join(BIN, 'codex'), ['debug', 'prompt-input', 'hi'], {
    cwd,
    env: clientEnv(home, {}),
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const input = JSON.parse(result.stdout) as { content?: ({ text?: string } | string)[] }[];
  for (const message of input) {
    for (const part of message.content ?? []) {
      const text = typeof part === 'string' ? part : (part.text ?? '');
      if (!text.includes('<skills_instructions>')) continue;
      return text
        .split('\n')
        .filter((line) => line.startsWith('- ') && line.endsWith(')') && line.includes('(file: '))
        .map((line) => {
          const nameEnd = line.indexOf(': ');
          const described = line.slice(nameEnd + 2, line.lastIndexOf(' (file: '));
          // A bare entry is `- name: (file: …)`.
          const shown = line.slice(nameEnd + 2).startsWith('(file: ') ? '' : described;
          return { name: line.slice(2, nameEnd), shownChars: [...shown].length };
        });
    }
  }
  return [];
}

/** What Claude Code's debug log says of its skill listing once it is over budget. */
export interface ClaudeListingLog {
  readonly skills: number;
  readonly chars: number;
  readonly budget: number;
}

/**
 * Starts Claude Code with one prompt (`-p hi`) and reads its debug log until it reports its skill
 * listing over budget (`Skill listing over budget: N skills, C chars > B budget`), then stops it:
 * the listing is built before the model is asked, and the API is a closed local port, so nothing
 * leaves the machine. The key is a dummy one so the client gets as far as building the request.
 * Null when the client never reports the listing over budget.
 */
export async function claudeListingLog(
  home: string,
  cwd: string,
  version: ClaudeCodeVersion = '2.1.197',
): Promise<ClaudeListingLog | null> {
  const debug = path.join(home, `claude-listing-${process.pid}-${Date.now()}.log`);
  const child = spawn(executable(version), ['-p', 'hi', '--debug-file', debug], {
    cwd,
    env: clientEnv(home, { ANTHROPIC_API_KEY: 'loadout-offline-test' }),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const pattern = /Skill listing over budget: (\d+) skills, (\d+) chars > (\d+) budget/;
  try {
    for (let waited = 0; waited < 60_000; waited += 200) {
      const match = pattern.exec(fs.existsSync(debug) ? fs.readFileSync(debug, 'utf8') : '');
      if (match !== null) return { skills: Number(match[1]), chars: Number(match[2]), budget: Number(match[3]) };
      if (child.exitCode !== null) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    return null;
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(debug, { force: true });
  }
}
