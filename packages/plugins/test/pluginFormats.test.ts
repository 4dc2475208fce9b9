import fs from 'node:fs';
import path from 'node:path';
import { gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_PLUGINS_1_0 } from '../src/testing/pluginFixtures.js';
import { closeWorkspaces, session, type Workspace, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });

async function installed(ws: Workspace, repo: string, options: { allowEmpty?: boolean } = {}) {
  const entry = await ws.manager.install(repo, options);
  const s = await session(ws);
  const mine = <T extends { plugin: string | null }>(records: T[]): T[] => records.filter((record) => record.plugin === entry.name);
  return {
    name: entry.name,
    root: fs.realpathSync(entry.root),
    skills: mine(s.skills).map((k) => k.id),
    servers: mine(s.servers) as unknown as Record<string, unknown>[],
    diagnostics: s.diagnostics.filter((d) => d.message.includes(`plugin ${entry.name}`)),
  };
}

describe('Claude Code plugins', () => {
  it('reads skills/ plus the manifest skills paths, .mcp.json plus inline servers, and names what it does not load', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'claude-plugin'), {
      '.claude-plugin': {
        'plugin.json': JSON.stringify({
          name: 'claude-kit',
          skills: ['./extra-skills', './single'],
          mcpServers: {
            inline: {
              type: 'http',
              url: 'https://mcp.example.com/${CLAUDE_PLUGIN_ROOT}',
              headers: { Authorization: 'Bearer ${API_TOKEN}' },
            },
          },
          commands: ['./more-commands'],
        }),
      },
      skills: { base: skill('base') },
      'extra-skills': { extra: skill('extra') },
      single: skill('single'),
      // The flat shape real repositories use, with no mcpServers wrapper.
      '.mcp.json': JSON.stringify({
        files: { command: 'npx', args: ['files-server', '${CLAUDE_PLUGIN_ROOT}/data', '${HOME}'], env: { TOKEN: '${FILES_TOKEN}' } },
        old: { type: 'sse', url: 'https://x.example/sse' },
      }),
      commands: { 'go.md': '# go' },
      agents: { 'reviewer.md': '# reviewer' },
      hooks: { 'hooks.json': JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup', hooks: [] }], Stop: [] } }) },
    });
    const result = await installed(ws, repo);
    expect(result.name).toBe('claude-kit');
    expect(result.skills).toEqual(['base', 'extra', 'single']);
    expect(result.servers.map((server) => server.id).sort()).toEqual(['files', 'inline', 'old']);
    expect(result.servers.find((server) => server.id === 'old')).toMatchObject({ url: 'https://x.example/sse' });
    expect(result.servers.find((server) => server.id === 'files')).toMatchObject({
      command: 'npx',
      args: ['files-server', `${result.root}/data`, '${HOME}'],
      cwd: result.root,
      envKeys: ['TOKEN', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA'],
    });
    expect(result.servers.find((server) => server.id === 'inline')).toMatchObject({
      transport: 'http',
      url: `https://mcp.example.com/${result.root}`,
    });
    const messages = result.diagnostics.map((d) => d.message).join('\n');
    expect(messages).not.toMatch(/"old" .* skipped/);
    // Its commands, agents and hooks load; a manifest path that is not there is named.
    expect(result.diagnostics.filter((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')).toEqual([]);
    expect(messages).toMatch(/plugin claude-kit: commands path \.\/more-commands does not exist; it is ignored/);
  });

  it('a manifest that lists the skills of the default skills/ folder one by one reads each once, with no SHADOWED', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'listed-kit'), {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'listed-kit', skills: ['./skills/alpha', './skills/beta', './skills/'] }) },
      skills: { alpha: skill('alpha'), beta: skill('beta') },
    });
    const result = await installed(ws, repo);
    expect(result.skills).toEqual(['alpha', 'beta']);
    const s = await session(ws);
    expect(s.diagnostics.filter((d) => d.code === 'SHADOWED')).toEqual([]);
  });

  it('reads a manifest mcpServers path and the wrapped .mcp.json shape; a path out of the plugin is refused', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'paths'), {
      '.claude-plugin': {
        'plugin.json': JSON.stringify({ name: 'paths', mcpServers: ['./config/servers.json', './../escape.json'], skills: '../outside' }),
      },
      config: { 'servers.json': JSON.stringify({ mcpServers: { wrapped: { command: './bin/run' } } }) },
      skills: { s: skill('s') },
    });
    const result = await installed(ws, repo);
    expect(result.servers.map((server) => [server.id, server.command])).toEqual([['wrapped', `${result.root}/bin/run`]]);
    const messages = result.diagnostics.map((d) => d.message).join('\n');
    expect(messages).toMatch(/"mcpServers" "\.\/\.\.\/escape\.json" is neither a \.\/ path/);
    expect(messages).toMatch(/skills path "\.\.\/outside" must start with \.\//);
    expect(result.skills).toEqual(['s']);
  });

  it('loads a root SKILL.md as a one-skill plugin', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'lonely-skill'), {
      'SKILL.md': skillMarkdown({ name: 'lonely-skill', description: 'One skill' }),
      'README.md': 'x',
    });
    expect((await installed(ws, repo)).skills).toEqual(['lonely-skill']);
  });
});

describe('Codex and Cursor plugins', () => {
  it('reads a Codex manifest: skills path, inline servers and the default .mcp.json', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'codex-plugin'), {
      '.codex-plugin': {
        'plugin.json': JSON.stringify({
          name: 'codex-kit',
          skills: './skills/',
          mcpServers: { docs: { command: 'docs-server' } },
          interface: { displayName: 'Codex kit' },
          apps: './.app.json',
        }),
      },
      skills: { lint: skill('lint') },
      '.mcp.json': JSON.stringify({ mcpServers: { search: { url: 'https://search.example.com/mcp' } } }),
      '.app.json': '{}',
    });
    const result = await installed(ws, repo);
    expect(result.skills).toEqual(['lint']);
    expect(result.servers.map((server) => server.id).sort()).toEqual(['docs', 'search']);
    expect(result.diagnostics.find((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')?.message).toMatch(/apps \(\.app\.json\)/);
  });

  it('reads a Cursor manifest with its mcp.json (no dot) and names its rules', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'cursor-plugin'), {
      '.cursor-plugin': { 'plugin.json': JSON.stringify({ name: 'cursor-kit', skills: './skills/', rules: './rules/' }) },
      skills: { style: skill('style') },
      rules: { 'style.mdc': 'x' },
      'mcp.json': JSON.stringify({ mcpServers: { lint: { command: 'lint-server' } } }),
    });
    const result = await installed(ws, repo);
    expect(result).toMatchObject({ name: 'cursor-kit', skills: ['style'] });
    expect(result.servers.map((server) => server.id)).toEqual(['lint']);
    expect(result.diagnostics.find((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')?.message).toMatch(/rules \(rules\/\)/);
  });
});

describe('a repository with several manifests, or none', () => {
  it('reads one manifest by precedence (Agent Plugins, Claude Code, Codex, Cursor), takes its name and names the others', async () => {
    const ws = workspace();
    const manifests = {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'from-claude' }) },
      '.codex-plugin': { 'plugin.json': JSON.stringify({ name: 'from-codex' }) },
      '.cursor-plugin': { 'plugin.json': JSON.stringify({ name: 'from-cursor', skills: './cursor-only' }) },
      skills: { shared: skill('shared') },
      'cursor-only': { hidden: skill('hidden') },
      rules: { 'style.md': '# style' },
    };
    const three = await installed(ws, gitRepo(path.join(ws.work, 'three'), manifests));
    expect(three.name).toBe('from-claude');
    expect(three.skills).toEqual(['shared']);
    expect(three.diagnostics.find((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')?.message).toMatch(
      /rules \(rules\/\), \.codex-plugin\/plugin\.json \(another manifest; \.claude-plugin\/plugin\.json is read\), \.cursor-plugin\/plugin\.json/,
    );
    const four = await installed(
      ws,
      gitRepo(path.join(ws.work, 'four'), {
        ...manifests,
        'plugin.json': JSON.stringify({ $schema: AGENT_PLUGINS_1_0, name: 'from-agent-plugins' }),
      }),
    );
    expect(four.name).toBe('from-agent-plugins');
  });

  it('reports skills one level too deep (the skills/.curated layout) instead of loading nothing in silence', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'tiered'), {
      skills: {
        '.curated': { 'pdf-tool': skill('pdf-tool'), 'doc-tool': skill('doc-tool') },
        '.system': { installer: skill('installer') },
        direct: skill('direct'),
      },
    });
    const result = await installed(ws, repo);
    expect(result.skills).toEqual(['direct']);
    const stray = result.diagnostics.find((d) => d.code === 'PLUGIN_SKILLS_NOT_IN_LAYOUT');
    expect(stray).toMatchObject({
      severity: 'warning',
      subjects: ['skills/.curated/doc-tool/SKILL.md', 'skills/.curated/pdf-tool/SKILL.md', 'skills/.system/installer/SKILL.md'],
    });
    expect(stray?.message).toMatch(/3 SKILL.md files are where no layout Loadout reads puts a skill/);
  });

  it("with no manifest, reads kind folders but not a .mcp.json (the repository's own project config), and says so", async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'bare-kit'), {
      skills: { bare: skill('bare') },
      '.mcp.json': JSON.stringify({ mcpServers: { dev: { command: 'dev-only' } } }),
    });
    const result = await installed(ws, repo);
    expect(result.skills).toEqual(['bare']);
    expect(result.servers).toEqual([]);
    expect(result.diagnostics.find((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')?.message).toMatch(
      /MCP servers in \.mcp\.json \(no plugin manifest names it/,
    );
  });

  it("installed whole, a marketplace repository with a manifest of its own is refused as loading nothing, and with --allow-empty says where its plugins' skills are", async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'workflows'), {
      '.cursor-plugin': { 'plugin.json': JSON.stringify({ name: 'workflows', description: 'many plugins' }) },
      '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'workflows', plugins: [{ name: 'py', source: './plugins/py' }] }) },
      plugins: {
        py: { skills: { 'py-async': skill('py-async'), 'py-test': skill('py-test') } },
        go: { skills: { 'go-mod': skill('go-mod') } },
      },
    });
    await expect(ws.manager.install(repo)).rejects.toMatchObject({
      code: 'PLUGIN_IS_A_MARKETPLACE',
      message: expect.stringMatching(/^this is a marketplace: `loadout marketplace add file:\/\/.*workflows`/),
    });
    expect(ws.registry.list()).toEqual([]);
    const result = await installed(ws, repo, { allowEmpty: true });
    expect(result.skills).toEqual([]);
    expect(result.diagnostics.find((d) => d.code === 'PLUGIN_SKILLS_NOT_IN_LAYOUT')).toMatchObject({
      subjects: ['plugins/go/skills/go-mod/SKILL.md', 'plugins/py/skills/py-async/SKILL.md', 'plugins/py/skills/py-test/SKILL.md'],
      message: expect.stringMatching(
        /this repository is also a marketplace \(\.claude-plugin\/marketplace\.json\): add it with `loadout marketplace add`/,
      ),
    });
  });

  it('refuses a repository with no plugin in it, naming skills found where no layout puts them', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'collection'), {
      'README.md': '# list',
      'brand-guidelines': skill('brand-guidelines'),
      docs: { 'a.md': 'x' },
    });
    await expect(ws.manager.install(repo)).rejects.toMatchObject({
      code: 'PLUGIN_NOT_A_PLUGIN',
      message: expect.stringMatching(/brand-guidelines\/SKILL\.md/),
    });
  });
});
