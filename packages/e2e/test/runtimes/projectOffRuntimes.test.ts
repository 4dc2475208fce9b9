import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTool, type ToolKey } from '../realTools.js';
import { spawnLoadout } from '../spawnLoadout.js';
import { jsonIn, runClient } from './clientRuns.js';
import { type ClaudeCodeVersion, claudeSessionServers, clientMcp } from './realClients.js';

afterAll(() => removeTestdirs());

/**
 * A global server switched off for one project, as a user does it (`loadout capability set
 * server/fs --disable --project P`): after the next apply each runtime's own listing, asked in P,
 * shows it off there, while in another folder of the same machine it is still on; switched on again,
 * the next apply takes Loadout's mark away, the listing in P shows it on, and the project's own
 * settings file is byte for byte what the user had.
 */

/** How a runtime's own listing shows the server `fs` in a folder. */
type Seen = 'on' | 'off' | 'absent';

interface OffCase {
  readonly runtime: string;
  readonly label: string;
  /** The user's own settings before Loadout, in the home folder and in the project: file → text. */
  readonly own: (home: string, project: string, elsewhere: string) => Record<string, string>;
  /** The project's file the runtime reads the mark from, when it is one of the project's own. */
  readonly projectFile?: (project: string) => string;
  readonly seen: (home: string, cwd: string) => Promise<Seen>;
}

const doc = (definition: Record<string, unknown>): string => `${JSON.stringify({ name: 'A server', ...definition }, null, 2)}\n`;

/**
 * `fs` in a Claude Code session started in the folder (its `init` line: `disabled` when the
 * project leaves it off) and, where the version shows it, in `claude mcp list` ("⊘ Disabled for
 * this project", 2.1.332; 2.1.197 lists it as any other).
 */
const claudeSeen =
  (version: ClaudeCodeVersion) =>
  async (home: string, cwd: string): Promise<Seen> => {
    const status = (await claudeSessionServers(home, cwd, version)).fs;
    if (status === undefined) return 'absent';
    const seen = status === 'disabled' ? 'off' : 'on';
    if (version !== '2.1.197') {
      const listed = clientMcp(version, home, cwd, ['list']);
      expect(listed.status, listed.stderr).toBe(0);
      const line = /^fs: .*$/m.exec(stripVTControlCharacters(listed.stdout))?.[0] ?? '';
      expect(line.includes('Disabled for this project') ? 'off' : 'on').toBe(seen);
    }
    return seen;
  };

/** `fs` in `opencode debug config` / `kilo debug config`: the merged configuration, `enabled: false` when off. */
const debugConfigSeen =
  (tool: ToolKey, bin: string) =>
  async (home: string, cwd: string): Promise<Seen> => {
    const config = await runClient(await ensureTool(tool), bin, ['debug', 'config'], home, cwd, {});
    expect(config.code, config.stderr).toBe(0);
    const fsEntry = ((jsonIn(config.stdout) as { mcp?: Record<string, { enabled?: boolean }> }).mcp ?? {}).fs;
    if (fsEntry === undefined) return 'absent';
    return fsEntry.enabled === false ? 'off' : 'on';
  };

/** A scratch home and a Loadout workspace whose capabilities hold `servers` (file → text). */
function scratchWorkspace(servers: Record<string, string>): { home: string; workspace: string } {
  const base = testdir({});
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), { servers });
  return { home: path.join(base, 'home'), workspace };
}

const claudeCase = (version: ClaudeCodeVersion): OffCase => ({
  runtime: 'claude-code',
  label: `claude-code ${version}`,
  own: (home) => ({
    [path.join(home, '.claude.json')]:
      `${JSON.stringify({ numStartups: 3, mcpServers: { mine: { type: 'stdio', command: 'node', args: ['mine.js'], env: {} } } }, null, 2)}\n`,
    [path.join(home, '.claude', 'settings.json')]: '{}\n',
  }),
  seen: claudeSeen(version),
});

const CASES: OffCase[] = [
  claudeCase('2.1.197'),
  claudeCase('2.1.332'),
  {
    runtime: 'codex',
    label: 'codex',
    own: (home, project, elsewhere) => ({
      [path.join(home, '.codex', 'config.toml')]:
        `# my codex settings\nmodel = "gpt-5"\n\n[projects."${project}"]\ntrust_level = "trusted"\n\n[projects."${elsewhere}"]\ntrust_level = "trusted"\n`,
      [path.join(project, '.codex', 'config.toml')]: '# this project\r\nmodel_reasoning_effort = "high"\r\n',
    }),
    projectFile: (project) => path.join(project, '.codex', 'config.toml'),
    seen: async (home, cwd) => {
      const listed = clientMcp('codex', home, cwd, ['list', '--json']);
      expect(listed.status, listed.stderr).toBe(0);
      const entry = (jsonIn(listed.stdout) as { name: string; enabled: boolean }[]).find((server) => server.name === 'fs');
      if (entry === undefined) return 'absent';
      return entry.enabled ? 'on' : 'off';
    },
  },
  {
    runtime: 'gemini-cli',
    label: 'gemini-cli',
    own: (home, project, elsewhere) => ({
      [path.join(home, '.gemini', 'settings.json')]:
        '{\n    "mcpServers": {\n        "mine": { "command": "node", "args": ["mine.js"] }\n    }\n}\n',
      [path.join(home, '.gemini', 'trustedFolders.json')]:
        `${JSON.stringify({ [project]: 'TRUST_FOLDER', [elsewhere]: 'TRUST_FOLDER' })}\n`,
      [path.join(project, '.gemini', 'settings.json')]: '{\n  // this project\n  "ui": { "theme": "Default" }\n}\n',
    }),
    projectFile: (project) => path.join(project, '.gemini', 'settings.json'),
    seen: async (home, cwd) => {
      const listed = await runClient(await ensureTool('gemini'), 'gemini', ['mcp', 'list'], home, cwd, {});
      expect(listed.code, listed.stderr).toBe(0);
      // `⛔ fs: node … (stdio) - Blocked` when the project excludes it; Gemini CLI prints on stdout or stderr.
      const line = /^\s*\S+\s+fs: .*$/m.exec(stripVTControlCharacters(`${listed.stdout}\n${listed.stderr}`))?.[0];
      if (line === undefined) return 'absent';
      return line.includes('Blocked') ? 'off' : 'on';
    },
  },
  {
    runtime: 'opencode',
    label: 'opencode',
    own: (home, project) => ({
      [path.join(home, '.config', 'opencode', 'opencode.json')]:
        '{\n  "mcp": {\n    "mine": { "type": "local", "command": ["node", "mine.js"] }\n  }\n}\n',
      [path.join(project, 'opencode.json')]: '{\n  "$schema": "https://opencode.ai/config.json",\n  "share": "disabled"\n}\n',
    }),
    projectFile: (project) => path.join(project, 'opencode.json'),
    seen: debugConfigSeen('opencode', 'opencode'),
  },
  {
    runtime: 'kilo-code',
    label: 'kilo-code',
    own: (home, project) => ({
      [path.join(home, '.config', 'kilo', 'kilo.jsonc')]:
        '{\n  "$schema": "https://app.kilo.ai/config.json",\n  "mcp": {\n    "mine": { "type": "local", "command": ["node", "mine.js"], },\n  },\n  "permission": { "bash": "allow" },\n}\n',
      // Kilo Code stamps `$schema` into a project config that lacks it when it starts: a real project's has it.
      [path.join(project, '.kilo', 'kilo.jsonc')]:
        '{\n  "$schema": "https://app.kilo.ai/config.json",\n  // this project\n  "share": "disabled",\n}\n',
    }),
    projectFile: (project) => path.join(project, '.kilo', 'kilo.jsonc'),
    seen: debugConfigSeen('kilo', 'kilo'),
  },
];

describe.concurrent('a global server switched off for one project is off in that project in each runtime, asked through its own client', () => {
  for (const offCase of CASES) {
    it(`${offCase.label}: off in the project, on elsewhere, and on again with the project's own file as it was`, async () => {
      const { home, workspace } = scratchWorkspace({ 'fs.json': doc({ command: 'node', args: ['-e', 'process.exit(0)'] }) });
      const project = fs.realpathSync(gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' }));
      const elsewhere = fs.realpathSync(gitRepo(path.join(home, 'work', 'other'), { 'README.md': 'other\n' }));
      const own = offCase.own(home, project, elsewhere);
      for (const [file, text] of Object.entries(own)) {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, text);
      }
      const loadout = async (...args: string[]) => {
        const run = await spawnLoadout(args, { HOME: home, LOADOUT_HOME: workspace }, workspace);
        expect(run.code, run.stderr + run.stdout.slice(0, 2000)).toBe(0);
        return run;
      };
      const apply = () => loadout('apply', '--project', project, '--runtime', offCase.runtime, '--json');
      expect((await loadout('trust', project)).code).toBe(0);

      await apply();
      expect(await offCase.seen(home, project)).toBe('on');

      await loadout('capability', 'set', 'server/fs', '--disable', '--project', project, '--json');
      const dry = await loadout('apply', '--project', project, '--runtime', offCase.runtime, '--dry-run', '--json');
      const planned = (JSON.parse(dry.stdout) as { runtimes: { changes: { kind: string; action: string; name: string }[] }[] }).runtimes
        .flatMap((part) => part.changes)
        .filter((change) => change.kind === 'server');
      expect(planned.map((change) => `${change.action}:${change.name}`)).toEqual(['create:fs']);
      const applied = JSON.parse((await apply()).stdout) as { runtimes: { findings: { code: string }[] }[] };
      expect(applied.runtimes.flatMap((part) => part.findings.map((finding) => finding.code))).not.toContain('SERVER_OFF_IN_PROJECT_ONLY');
      expect(await offCase.seen(home, project)).toBe('off');
      expect(await offCase.seen(home, elsewhere)).toBe('on');
      await loadout('apply', '--project', project, '--runtime', offCase.runtime, '--check');

      await loadout('capability', 'set', 'server/fs', '--enable', '--project', project, '--json');
      await apply();
      expect(await offCase.seen(home, project)).toBe('on');
      const projectFile = offCase.projectFile?.(project);
      if (projectFile !== undefined) expect(fs.readFileSync(projectFile, 'utf8')).toBe(own[projectFile]);
      else {
        const claudeJson = JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8')) as {
          projects?: Record<string, { disabledMcpServers?: string[] }>;
        };
        expect(claudeJson.projects?.[project]?.disabledMcpServers ?? []).not.toContain('fs');
      }
    }, 600_000);
  }
});

describe("a server's tool allow and deny lists, as each runtime's own client reads them", () => {
  it('Codex shows enabled_tools and disabled_tools, Copilot CLI its tools list', async () => {
    const { home, workspace } = scratchWorkspace({
      'files.json': doc({
        command: 'node',
        args: ['-e', 'process.exit(0)'],
        tools: { allow: ['read_file', 'list_dir'], deny: ['write_file'] },
      }),
    });
    fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    const applied = await spawnLoadout(
      ['apply', '--runtime', 'codex', '--runtime', 'copilot-cli', '--runtime', 'claude-code', '--json'],
      { HOME: home, LOADOUT_HOME: workspace },
      workspace,
    );
    expect(applied.code, applied.stderr + applied.stdout.slice(0, 2000)).toBe(0);
    const plan = JSON.parse(applied.stdout) as { runtimes: { runtime: string; findings: { code: string; severity: string }[] }[] };
    const codes = (runtime: string) =>
      plan.runtimes.find((part) => part.runtime === runtime)?.findings.map((finding) => finding.code) ?? [];
    expect(codes('claude-code')).toContain('SERVER_TOOLS_UNSUPPORTED');
    // Copilot CLI has an allow list only: its missing deny list is said as info.
    expect(codes('copilot-cli')).toContain('SERVER_TOOLS_UNSUPPORTED');
    expect(codes('codex')).not.toContain('SERVER_TOOLS_UNSUPPORTED');

    const codex = clientMcp('codex', home, home, ['get', 'files', '--json']);
    expect(codex.status, codex.stderr).toBe(0);
    expect(jsonIn(codex.stdout)).toMatchObject({ name: 'files', enabled_tools: ['read_file', 'list_dir'], disabled_tools: ['write_file'] });

    const copilot = await runClient(await ensureTool('copilot'), 'copilot', ['mcp', 'list', '--json'], home, home, {
      XDG_CACHE_HOME: path.join((await ensureTool('copilot')).prefix, 'xdg-cache'),
    });
    expect(copilot.code, copilot.stderr).toBe(0);
    expect((jsonIn(copilot.stdout) as { mcpServers: Record<string, { tools?: string[] }> }).mcpServers.files?.tools).toEqual([
      'read_file',
      'list_dir',
    ]);
  }, 600_000);
});
