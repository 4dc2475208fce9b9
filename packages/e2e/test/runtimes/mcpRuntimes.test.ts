import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { type McpConfigFile, openMcpConfig } from '@loadout/runtimes';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTool, type InstalledTool, type ToolKey } from '../realTools.js';
import { type ClientRun, geminiStyleNames, jsonIn, runClient } from './clientRuns.js';
import { spawnLoadout } from '../spawnLoadout.js';
import { clineMcpTab } from './clineSettingsScreen.js';

afterAll(() => removeTestdirs());

/**
 * Each runtime marked `verified` for MCP servers is asked by its own client, installed at the
 * pinned version, offline, in a scratch home: after apply it lists exactly the planned servers
 * (and skills, where it lists them), the user's own entries stay byte for byte, and a server
 * switched off or held (an untrusted project's) is gone after the next apply. The runtimes run
 * concurrently, each in its own home.
 */

const doc = (definition: Record<string, unknown>): string => `${JSON.stringify({ name: 'A server', ...definition }, null, 2)}\n`;

/** A closed local port: a client that tries to connect fails at once, and nothing leaves the machine. */
const CLOSED = 'http://127.0.0.1:9/mcp';

/** Where a client is asked: for one that is not asked through a plain command line (Cline's settings screen). */
interface ClientPlace {
  readonly tool: InstalledTool;
  readonly home: string;
  readonly project: string;
}

interface RuntimeCase {
  readonly runtime: string;
  readonly tool: ToolKey;
  readonly bin: string;
  /** The user's own configuration before Loadout: file (under the home or the project) → text. */
  readonly own: (home: string, project: string) => Record<string, string>;
  /** The user file Loadout edits, for the byte-for-byte check. */
  readonly userFile: (home: string) => McpConfigFile;
  readonly servers: (run: (...args: string[]) => Promise<ClientRun>, place: ClientPlace) => Promise<string[]>;
  readonly skills?: (run: (...args: string[]) => Promise<ClientRun>) => Promise<string[]>;
  /**
   * What the listing shows after the first apply and after the second, when not the usual
   * (a runtime that expands no `${NAME}` gets no server whose entry needs one).
   */
  readonly listed?: { readonly first: readonly string[]; readonly after: readonly string[] };
  /** Variables the client needs besides the scratch home. */
  readonly env?: (tool: InstalledTool) => Record<string, string>;
}

const jsonFile = (file: string, container: string): McpConfigFile => ({
  file,
  scope: 'user',
  format: 'json',
  container,
  writes: true,
  note: '',
  sharedLock: false,
  createMode: 0o600,
});

/**
 * The servers in `debug config` (OpenCode and Kilo Code, built on it: the merged configuration as
 * JSON, nothing connected); `gh`'s token reference must show as `shownToken` once resolved.
 */
const debugConfigServers =
  (shownToken: string): RuntimeCase['servers'] =>
  async (run) => {
    const config = await run('debug', 'config');
    expect(config.code, config.stderr).toBe(0);
    const mcp = (jsonIn(config.stdout) as { mcp?: Record<string, { environment?: Record<string, string> }> }).mcp ?? {};
    if (mcp.gh !== undefined) expect(mcp.gh.environment).toEqual({ GITHUB_TOKEN: shownToken });
    return Object.keys(mcp).sort();
  };

/** `mcp list` of Gemini CLI and the clients that print their servers alike (Qwen Code, Qoder CLI). */
const mcpListLines: RuntimeCase['servers'] = async (run) => {
  const listed = await run('mcp', 'list');
  expect(listed.code, listed.stderr).toBe(0);
  // Gemini CLI prints the list on stdout or stderr depending on its version's logger.
  return geminiStyleNames(`${listed.stdout}\n${listed.stderr}`);
};

const CASES: RuntimeCase[] = [
  {
    runtime: 'gemini-cli',
    tool: 'gemini',
    bin: 'gemini',
    own: (home, project) => ({
      [path.join(home, '.gemini', 'settings.json')]:
        '{\n    "ui": { "theme": "Default" },\n    "mcpServers": {\n        "mine": { "command": "node", "args": ["mine.js"] }\n    }\n}\n',
      [path.join(home, '.gemini', 'trustedFolders.json')]: `${JSON.stringify({ [project]: 'TRUST_FOLDER' })}\n`,
    }),
    userFile: (home) => jsonFile(path.join(home, '.gemini', 'settings.json'), 'mcpServers'),
    servers: mcpListLines,
    skills: async (run) => {
      const listed = await run('skills', 'list');
      expect(listed.code, listed.stderr).toBe(0);
      return [...stripVTControlCharacters(listed.stdout).matchAll(/^([A-Za-z0-9_-]+) \[Enabled\]/gm)].map((match) => match[1] as string);
    },
  },
  {
    runtime: 'opencode',
    tool: 'opencode',
    bin: 'opencode',
    own: (home) => ({
      [path.join(home, '.config', 'opencode', 'opencode.jsonc')]:
        // JSONC as OpenCode reads it: comments, and a comma after the last member, which OpenCode accepts.
        '// my OpenCode settings\n{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    // mine, off for now\n    "mine": { "type": "local", "command": ["node", "mine.js"], "enabled": false, },\n  },\n}\n',
    }),
    userFile: (home) => ({ ...jsonFile(path.join(home, '.config', 'opencode', 'opencode.jsonc'), 'mcp'), trailingCommas: true }),
    // `{env:GITHUB_TOKEN}` is OpenCode's own reference: resolved from the client's environment, and masked when shown.
    servers: debugConfigServers('***'),
    skills: async (run) => {
      const listed = await run('debug', 'skill');
      expect(listed.code, listed.stderr).toBe(0);
      return (jsonIn(listed.stdout) as { name: string; location: string }[])
        .filter((skill) => skill.location !== '<built-in>')
        .map((skill) => skill.name);
    },
  },
  {
    runtime: 'copilot-cli',
    tool: 'copilot',
    bin: 'copilot',
    own: (home, project) => ({
      [path.join(home, '.copilot', 'mcp-config.json')]:
        '{\n  "mcpServers": {\n    "mine": {\n      "tools": ["*"],\n      "type": "local",\n      "command": "node",\n      "args": ["mine.js"]\n    }\n  }\n}\n',
      [path.join(home, '.copilot', 'config.json')]: `${JSON.stringify({ trusted_folders: [project] })}\n`,
    }),
    userFile: (home) => jsonFile(path.join(home, '.copilot', 'mcp-config.json'), 'mcpServers'),
    // Copilot CLI unpacks its own package into the cache folder on its first start (seconds, a minute
    // on a busy machine): the tool's cache folder keeps one unpacked copy instead of one per scratch home.
    env: (tool) => ({ XDG_CACHE_HOME: path.join(tool.prefix, 'xdg-cache') }),
    servers: async (run) => {
      const listed = await run('mcp', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      const servers = (jsonIn(listed.stdout) as { mcpServers: Record<string, { source: string }> }).mcpServers;
      return Object.entries(servers)
        .filter(([, server]) => server.source === 'user' || server.source === 'workspace')
        .map(([name]) => name)
        .sort();
    },
    skills: async (run) => {
      const listed = await run('skill', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      const names: string[] = [];
      // Whatever the grouping, every skill object carries its name; the bundled ones are left out.
      const walk = (value: unknown, bundled: boolean): void => {
        if (Array.isArray(value)) for (const item of value) walk(item, bundled);
        else if (value !== null && typeof value === 'object') {
          const record = value as Record<string, unknown>;
          const isBuiltin = bundled || record.source === 'builtin' || record.source === 'bundled';
          if (typeof record.name === 'string' && typeof record.description === 'string' && !isBuiltin) names.push(record.name);
          for (const [key, item] of Object.entries(record)) walk(item, isBuiltin || /^(builtin|bundled)$/i.test(key));
        }
      };
      walk(jsonIn(listed.stdout), false);
      return names;
    },
  },
  {
    runtime: 'qwen-code',
    tool: 'qwen',
    bin: 'qwen',
    // Qwen Code stamps `$version` into its settings when it starts: a real user's file has it already.
    own: (home) => ({
      [path.join(home, '.qwen', 'settings.json')]:
        '{\r\n  "general": { "vimMode": true },\r\n  "mcpServers": {\r\n    "mine": { "command": "node", "args": ["mine.js"] }\r\n  },\r\n  "$version": 4\r\n}\r\n',
    }),
    userFile: (home) => jsonFile(path.join(home, '.qwen', 'settings.json'), 'mcpServers'),
    servers: mcpListLines,
  },
  {
    runtime: 'amp',
    tool: 'amp',
    bin: 'amp',
    own: (home) => ({
      [path.join(home, '.config', 'amp', 'settings.json')]:
        '{\n\t"amp.notifications.enabled": false,\n\t"amp.mcpServers": {\n\t\t"mine": { "command": "node", "args": ["mine.js"] }\n\t}\n}\n',
    }),
    userFile: (home) => jsonFile(path.join(home, '.config', 'amp', 'settings.json'), 'amp.mcpServers'),
    servers: async (run) => {
      const listed = await run('mcp', 'list');
      expect(listed.code, listed.stderr).toBe(0);
      return [...stripVTControlCharacters(listed.stdout).matchAll(/^ {2}([A-Za-z0-9_-]+)\s{2,}(command|url)\s/gm)]
        .map((match) => match[1] as string)
        .sort();
    },
  },
  {
    runtime: 'kilo-code',
    tool: 'kilo',
    bin: 'kilo',
    own: (home) => ({
      // JSONC with comments and trailing commas, as Kilo Code (built on OpenCode) reads it. Kilo Code
      // stamps `$schema` and `permission` into its global config when it starts: a real user's file has them.
      [path.join(home, '.config', 'kilo', 'kilo.jsonc')]:
        '{\n  "$schema": "https://app.kilo.ai/config.json",\n  // mine\n  "mcp": {\n    "mine": { "type": "local", "command": ["node", "mine.js"], "enabled": false, },\n  },\n  "share": "disabled",\n  "permission": {\n    "bash": "allow"\n  },\n}\n',
    }),
    userFile: (home) => ({ ...jsonFile(path.join(home, '.config', 'kilo', 'kilo.jsonc'), 'mcp'), trailingCommas: true }),
    // The same reference, resolved from the client's environment and shown in clear.
    servers: debugConfigServers('tok-e2e-passed'),
  },
  {
    runtime: 'auggie',
    tool: 'auggie',
    bin: 'auggie',
    own: (home) => ({
      // As `auggie mcp add` writes it.
      [path.join(home, '.augment', 'settings.json')]:
        '{\n  "mcpServers": {\n    "mine": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        "mine.js"\n      ],\n      "env": {}\n    }\n  }\n}',
    }),
    userFile: (home) => jsonFile(path.join(home, '.augment', 'settings.json'), 'mcpServers'),
    // Auggie expands no `${NAME}`: `gh` (a token in its env) and `remote` (one in a header) are skipped with the reason.
    listed: { first: ['fs', 'mine', 'proj'], after: ['mine'] },
    servers: async (run) => {
      const listed = await run('mcp', 'list', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      return (jsonIn(listed.stdout) as { servers: { name: string }[] }).servers.map((server) => server.name).sort();
    },
  },
  {
    runtime: 'qoder-cli',
    tool: 'qoder',
    bin: 'qodercli',
    own: (home) => ({
      // As `qodercli mcp add -s user` writes it.
      [path.join(home, '.qoder', 'settings.json')]:
        '{\n  "mcpServers": {\n    "mine": {\n      "command": "node",\n      "args": [\n        "mine.js"\n      ]\n    }\n  }\n}',
    }),
    userFile: (home) => jsonFile(path.join(home, '.qoder', 'settings.json'), 'mcpServers'),
    servers: mcpListLines,
  },
  {
    runtime: 'cline',
    tool: 'cline',
    bin: 'cline',
    own: (home) => ({
      // As Cline's documentation lays a local server out.
      [path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json')]:
        '{\n  "mcpServers": {\n    "mine": {\n      "command": "node",\n      "args": ["mine.js"],\n      "disabled": false,\n      "autoApprove": []\n    }\n  }\n}\n',
    }),
    userFile: (home) => jsonFile(path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json'), 'mcpServers'),
    // One settings file for every project, so `proj` has nowhere to go; `gh` and `remote` need a `${NAME}`, which Cline does not expand.
    listed: { first: ['fs', 'mine'], after: ['mine'] },
    servers: async (_run, place) => {
      const tab = await clineMcpTab({
        cline: place.tool.bin('cline'),
        home: place.home,
        cwd: place.project,
        path: `${path.dirname(place.tool.node)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      });
      // Every row read is a server Cline starts (●, not switched off ○) over stdio, as written.
      for (const server of tab.servers) {
        expect(server.enabled, tab.screen).toBe(true);
        expect(server.description, tab.screen).toMatch(/^stdio, /);
      }
      return tab.servers.map((server) => server.name).sort();
    },
  },
];

/**
 * A new user of one runtime: a scratch home holding the runtime's own settings with a server of the
 * user's (and trust of the project where the runtime asks for it), a Loadout workspace with three
 * global servers (`fs` on stdio, `gh` passing a token by reference, `remote` over Streamable HTTP
 * with its token by reference) and a skill, and a trusted project with a server of its own.
 */
async function newUser(runtimeCase: RuntimeCase) {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  const project = gitRepo(path.join(home, 'work', 'app'), {
    'README.md': 'app\n',
    '.agents': { servers: { 'proj.json': doc({ command: 'node', args: ['-e', 'process.exit(0)'] }) } },
  });
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), {
    servers: {
      'fs.json': doc({ command: 'node', args: ['-e', 'process.exit(0)'], env: { LOG_LEVEL: 'verbose' } }),
      'gh.json': doc({ command: 'node', args: ['-e', 'process.exit(0)'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } }),
      'remote.json': doc({ url: CLOSED, headers: { Authorization: 'Bearer ${EXAMPLE_TOKEN}' } }),
    },
    skills: { notes: { 'SKILL.md': '---\nname: notes\ndescription: Takes notes the same way in every agent\n---\nWrite it down.\n' } },
  });
  const own = runtimeCase.own(home, project);
  for (const [file, text] of Object.entries(own)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  const loadout = (...args: string[]) => spawnLoadout(args, { HOME: home, LOADOUT_HOME: workspace }, workspace);
  const trusted = await loadout('trust', project);
  expect(trusted.code, trusted.stderr).toBe(0);
  const tool = await ensureTool(runtimeCase.tool);
  const run = (...args: string[]) => runClient(tool, runtimeCase.bin, args, home, project, runtimeCase.env?.(tool) ?? {});
  const place: ClientPlace = { tool, home, project };
  const apply = async () => {
    const applied = await loadout('apply', '--project', project, '--runtime', runtimeCase.runtime, '--json');
    expect(applied.code, applied.stderr + applied.stdout.slice(0, 2000)).toBe(0);
    return applied;
  };
  return { home, workspace, project, own, loadout, run, place, apply };
}

/** A file's text without the entries Loadout's manifest says it manages there now. */
function withoutManaged(workspace: string, target: McpConfigFile): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(workspace, '.loadout', 'runtimes', 'mcp-manifest.json'), 'utf8')) as {
    entries: { file: string; name: string }[];
  };
  const document = openMcpConfig(target, fs.readFileSync(target.file, 'utf8'), target.file);
  for (const entry of manifest.entries) if (entry.file === target.file) document.remove(entry.name);
  return document.text();
}

describe.concurrent('each verified runtime lists exactly the servers Loadout planned, asked through its own client', () => {
  for (const runtimeCase of CASES) {
    it(`${runtimeCase.runtime}: applied, listed, the user's own entries kept, off and held servers gone after the next apply`, async () => {
      const user = await newUser(runtimeCase);
      const applied = await user.apply();
      const plan = JSON.parse(applied.stdout) as { runtimes: { runtime: string; mcp: { status: string; support: string } | null }[] };
      expect(plan.runtimes.find((part) => part.runtime === runtimeCase.runtime)?.mcp).toMatchObject({ status: 'ok', support: 'verified' });

      const listed = runtimeCase.listed ?? { first: ['fs', 'gh', 'mine', 'proj', 'remote'], after: ['gh', 'mine', 'remote'] };
      expect(await runtimeCase.servers(user.run, user.place)).toEqual(listed.first);
      if (runtimeCase.skills !== undefined) expect(await runtimeCase.skills(user.run)).toContain('notes');
      const target = runtimeCase.userFile(user.home);
      expect(withoutManaged(user.workspace, target)).toBe(user.own[target.file]);

      // A server switched off, and the project held (no longer trusted): both gone after the next apply.
      const off = await user.loadout('capability', 'set', 'server/fs', '--disable', '--json');
      expect(off.code, off.stderr).toBe(0);
      const untrusted = await user.loadout('untrust', user.project);
      expect(untrusted.code, untrusted.stderr).toBe(0);
      await user.apply();
      expect(await runtimeCase.servers(user.run, user.place)).toEqual(listed.after);
      expect(withoutManaged(user.workspace, target)).toBe(user.own[target.file]);

      const check = await user.loadout('apply', '--project', user.project, '--runtime', runtimeCase.runtime, '--check');
      expect(check.code, check.stdout).toBe(0);
    }, 600_000);
  }
});

describe('a runtime that is not set up', () => {
  it('gets no folder and no file: its MCP files are read and reported, never written', async () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    const workspace = path.join(base, 'workspace');
    const project = gitRepo(path.join(home, 'work', 'app'), {
      'README.md': 'app\n',
      '.agents': { servers: { 'proj.json': doc({ command: 'node', args: ['proj.js'] }) } },
    });
    fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
    gitRepo(path.join(workspace, 'capabilities'), { servers: { 'fs.json': doc({ command: 'node', args: ['fs.js'] }) } });
    const loadout = (...args: string[]) => spawnLoadout(args, { HOME: home, LOADOUT_HOME: workspace }, workspace);
    expect((await loadout('trust', project)).code).toBe(0);
    const absent = [
      'gemini-cli',
      'opencode',
      'copilot-cli',
      'copilot-vscode',
      'qwen-code',
      'amp',
      'cursor',
      'windsurf',
      'crush',
      'kilo-code',
      'cline',
      'qoder-cli',
    ];
    const before = fs.readdirSync(home).sort();
    const applied = await loadout('apply', '--project', project, ...absent.flatMap((name) => ['--runtime', name]), '--json');
    expect(applied.code, applied.stderr).toBe(0);
    const plan = JSON.parse(applied.stdout) as {
      runtimes: { runtime: string; mcp: { files: { writes: boolean; note: string }[] } | null }[];
    };
    for (const part of plan.runtimes) {
      expect(part.mcp?.files.length, part.runtime).toBeGreaterThan(0);
      for (const file of part.mcp?.files ?? []) {
        expect(file.writes, part.runtime).toBe(false);
        expect(file.note).toContain('is not set up here');
      }
    }
    // Nothing new in the home folder, and nothing in the project but what was there.
    expect(fs.readdirSync(home).sort()).toEqual(before);
    expect(fs.readdirSync(project).sort()).toEqual(['.agents', '.git', 'README.md']);
  }, 120_000);
});
