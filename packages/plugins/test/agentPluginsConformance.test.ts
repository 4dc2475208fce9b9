import fs from 'node:fs';
import path from 'node:path';
import type { InlineDocument } from '@loadout/kernel';
import { gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeWorkspaces, pluginFolders, session, type Workspace, withSession, workspace } from './pluginWorkspace.js';

// One fixture per item of the Agent Plugins conformance checklist (Appendix A) that applies to a
// client of skills and MCP servers, plus the normative rules the checklist has no line for. Each
// is a real git repository installed through the plugin manager and read through a session.

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const PLUGIN_1_0 = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const PLUGIN_1_1 = 'https://agent-plugins.org/schemas/1.1.0/plugin.schema.json';
const MCP_1_0 = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json';
const MCP_1_1 = 'https://agent-plugins.org/schemas/1.1.0/mcp.schema.json';

const skill = (name: string, description = `The ${name} skill`) => ({ 'SKILL.md': skillMarkdown({ name, description }) });
const manifest = (fields: Record<string, unknown>) => JSON.stringify({ $schema: PLUGIN_1_0, name: 'conformant', ...fields });
const mcp = (servers: Record<string, unknown>, schema = MCP_1_0) => JSON.stringify({ $schema: schema, mcpServers: servers });

/** A plugin repository: a 1.0.0 manifest named `conformant` and one good skill unless `tree` says otherwise. */
function plugin(ws: Workspace, tree: TreeDescription, repo = 'conformant-repo'): string {
  return gitRepo(path.join(ws.work, repo), { 'plugin.json': manifest({}), skills: { good: skill('good') }, ...tree });
}

interface Loaded {
  readonly skills: string[];
  readonly servers: string[];
  readonly codes: string[];
  readonly messages: string;
  /** The server definitions as the session would run them, environment values included. */
  readonly documents: Record<string, Record<string, unknown>>;
}

async function installAndLoad(ws: Workspace, repo: string, options: { allowEmpty?: boolean } = {}): Promise<Loaded> {
  const entry = await ws.manager.install(repo, options);
  const json = await session(ws);
  const documents = await withSession(ws, (opened) => {
    const root = opened.roots.find((candidate) => candidate.plugin === entry.name);
    const docs = (root?.layout?.kinds.servers ?? []).flatMap((source) =>
      'document' in source ? [source.document] : [],
    ) as InlineDocument[];
    return Object.fromEntries(docs.map((doc) => [doc.name.replace(/\.json$/, ''), doc.content as Record<string, unknown>]));
  });
  const ofPlugin = json.diagnostics.filter((d) => d.message.includes(`plugin ${entry.name}`) || d.code === 'PATH_OUTSIDE_ROOT');
  return {
    skills: json.skills.filter((s) => s.plugin === entry.name).map((s) => s.id),
    servers: json.servers.filter((s) => s.plugin === entry.name).map((s) => s.id),
    codes: ofPlugin.map((d) => d.code).sort(),
    messages: ofPlugin.map((d) => d.message).join('\n'),
    documents,
  };
}

async function expectRejected(ws: Workspace, repo: string, reason: RegExp): Promise<void> {
  await expect(ws.manager.install(repo)).rejects.toMatchObject({ code: 'PLUGIN_MANIFEST_INVALID', message: expect.stringMatching(reason) });
  expect(pluginFolders(ws)).toEqual([]);
  expect(ws.registry.list()).toEqual([]);
}

describe('Agent Plugins conformance: the manifest (L1–L6, S1–S5, S7)', () => {
  it('L1/L2: a minimal valid manifest loads its skills', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(ws, plugin(ws, { 'plugin.json': JSON.stringify({ $schema: PLUGIN_1_0, name: 'minimal' }) }));
    expect(loaded.skills).toEqual(['good']);
    expect(ws.registry.list().map((p) => p.name)).toEqual(['minimal']);
  });

  it.each([
    ['not JSON', '{ "name": ', /not valid JSON/],
    ['not an object', '["x"]', /JSON object/],
    ['an empty $schema', JSON.stringify({ $schema: '', name: 'conformant' }), /"\$schema" is missing/],
    [
      'an unknown $schema version (S3)',
      JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/2.0.0/plugin.schema.json', name: 'conformant' }),
      /version Loadout does not support/,
    ],
    [
      'a $schema that is not Agent Plugins',
      JSON.stringify({ $schema: 'https://json.schemastore.org/claude-code-plugin-manifest.json', name: 'x' }),
      /does not support/,
    ],
    ['missing name', JSON.stringify({ $schema: PLUGIN_1_0 }), /"name" is missing/],
    ['an empty name', manifest({ name: '' }), /"name" is missing/],
    ['an upper-case name (L3)', manifest({ name: 'My-Plugin' }), /naming rules/],
    ['a name with -- (L3)', manifest({ name: 'has--double' }), /naming rules/],
    ['a name with .. (L3)', manifest({ name: 'too.many..dots' }), /naming rules/],
    ['a name starting with - (L3)', manifest({ name: '-start' }), /naming rules/],
    ['a name of 65 characters (L3)', manifest({ name: 'a'.repeat(65) }), /naming rules/],
    ['a wrong type on a metadata field (S4)', manifest({ version: 1 }), /"version" is invalid/],
    ['keywords that are not strings (S4)', manifest({ keywords: ['a', 2] }), /"keywords.1" is invalid/],
    ['an extra key in author (S4)', manifest({ author: { name: 'A', twitter: '@a' } }), /"author" is invalid/],
  ])('rejects a plugin.json with %s: nothing of the plugin is installed', async (_what, text, reason) => {
    const ws = workspace();
    await expectRejected(ws, plugin(ws, { 'plugin.json': text }), reason);
  });

  it("a root plugin.json with no $schema (an older or another ecosystem's manifest) installs as a plain plugin, named by it, with a warning", async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, { 'plugin.json': JSON.stringify({ name: 'older-kit', version: '0.3.0', main: 'index.js' }) }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(ws.registry.list().map((p) => p.name)).toEqual(['older-kit']);
    expect(loaded.codes).toContain('PLUGIN_MANIFEST_PLAIN');
    expect(loaded.messages).toMatch(/plugin older-kit: plugin.json has no "\$schema"/);
  });

  it('L3: accepts names with periods, a single character and mixed separators', async () => {
    for (const name of ['acme.tools', 'a', 'a.-b']) {
      const ws = workspace();
      await installAndLoad(ws, plugin(ws, { 'plugin.json': manifest({ name }) }));
      expect(ws.registry.list().map((p) => p.name)).toEqual([name]);
    }
  });

  it('S4: metadata is checked by type only (non-SemVer version, non-URL homepage, odd email and licence load)', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'plugin.json': manifest({ version: 'banana', homepage: 'not a url', license: 'Mine', author: { email: 'nobody' }, keywords: [] }),
      }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.codes).toEqual([]);
  });

  it('L4/S7: reports and ignores each unknown field, skills and mcpServers included, and gives them no meaning', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'plugin.json': manifest({ displayName: 'Conformant', skills: './other', mcpServers: { x: { type: 'stdio', command: 'node' } } }),
        other: { hidden: skill('hidden') },
      }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.servers).toEqual([]);
    expect(loaded.codes.filter((code) => code === 'PLUGIN_MANIFEST_FIELD_IGNORED')).toHaveLength(3);
    expect(loaded.messages).toMatch(/unknown field "displayName"/);
    expect(loaded.messages).toMatch(/unknown field "skills" is ignored \(Agent Plugins reads skills\/ and mcp.json at fixed places\)/);
  });

  it('L5/S5: a non-object extensions is reported and ignored; namespaces Loadout does not implement are never validated', async () => {
    const ws = workspace();
    const reported = await installAndLoad(ws, plugin(ws, { 'plugin.json': manifest({ extensions: 'yes' }) }));
    expect(reported.skills).toEqual(['good']);
    expect(reported.messages).toMatch(/"extensions" is not an object/);
    const quiet = workspace();
    const ignored = await installAndLoad(
      quiet,
      plugin(quiet, { 'plugin.json': manifest({ extensions: { 'com.example.client': 5, 'org.other': { a: [1] } } }) }),
    );
    expect(ignored.skills).toEqual(['good']);
    expect(ignored.codes).toEqual([]);
  });

  it('L4a/L4c (1.1.0): presentation is a closed object; an icon that is not a ./ path is ignored, never fetched', async () => {
    const ws = workspace();
    const v11 = (presentation: unknown) => JSON.stringify({ $schema: PLUGIN_1_1, name: 'conformant', presentation });
    const loaded = await installAndLoad(
      ws,
      plugin(ws, { 'plugin.json': v11({ displayName: 'Conformant', icon: 'https://example.invalid/i.png' }) }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.messages).toMatch(/"presentation.icon" is not a \.\/ path/);
    const empty = workspace();
    expect((await installAndLoad(empty, plugin(empty, { 'plugin.json': v11({}) }))).codes).toEqual([]);
    for (const [presentation, reason] of [
      ['big', /"presentation" is invalid/],
      [{ displayName: 'X', color: 'red' }, /"presentation" is invalid/],
      [{ displayName: 7 }, /"presentation.displayName" is invalid/],
      [{ icon: 7 }, /"presentation.icon" is invalid/],
    ] as const) {
      const refused = workspace();
      await expectRejected(refused, plugin(refused, { 'plugin.json': v11(presentation) }), reason);
    }
    // In a 1.0.0 manifest, presentation is only an unknown field.
    const older = workspace();
    expect((await installAndLoad(older, plugin(older, { 'plugin.json': manifest({ presentation: 'big' }) }))).messages).toMatch(
      /unknown field "presentation"/,
    );
  });

  it('L6/S1/S2: plugin.json that is a directory or a link out of the root rejects the plugin; a link inside is read', async () => {
    const ws = workspace();
    await expectRejected(ws, plugin(ws, { 'plugin.json': { 'x.json': '{}' } }), /not a regular file/);
    const outside = path.join(ws.work, 'elsewhere.json');
    fs.writeFileSync(outside, manifest({}));
    const linked = plugin(ws, {}, 'linked-out');
    fs.rmSync(path.join(linked, 'plugin.json'));
    fs.symlinkSync(outside, path.join(linked, 'plugin.json'));
    gitCommit(linked, {}, 'link the manifest out');
    await expectRejected(ws, linked, /leads outside/);
    const inside = plugin(ws, { 'meta.json': manifest({ name: 'linked-in' }) }, 'linked-in');
    fs.rmSync(path.join(inside, 'plugin.json'));
    fs.symlinkSync('meta.json', path.join(inside, 'plugin.json'));
    gitCommit(inside, {}, 'link the manifest in');
    expect((await installAndLoad(ws, inside)).skills).toEqual(['good']);
  });

  it('a plugin whose manifest turns invalid in an update is rejected by the next session: nothing of it loads', async () => {
    const ws = workspace();
    const repo = plugin(ws, {
      'mcp.json': mcp({ tool: { type: 'stdio', command: 'node' } }),
      tasks: { t: { 'TASK.md': '---\nname: t\ndescription: t\nimplementation: run.sh\n---\n', 'run.sh': 'true\n' } },
    });
    const before = await installAndLoad(ws, repo);
    expect(before.skills).toEqual(['good']);
    expect(before.servers).toEqual(['tool']);
    gitCommit(repo, { 'plugin.json': manifest({ name: 'Conformant' }) }, 'break the name');
    await ws.manager.update(['conformant']);
    const after = await session(ws);
    expect([...after.skills, ...after.servers, ...after.tasks].filter((record) => record.plugin === 'conformant')).toEqual([]);
    expect(after.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'PLUGIN_REJECTED',
        message: expect.stringMatching(/plugin conformant is not loaded: .*naming rules/),
      }),
    );
  });
});

describe('Agent Plugins conformance: component discovery (D1, D2, S6, S8–S10, R1)', () => {
  it('D2: missing skills/ and mcp.json are no error', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'empty'), { 'plugin.json': manifest({}), 'README.md': 'hi' });
    // Loading nothing is no error of the reading; installing it is Loadout's choice, so it is asked for.
    await expect(ws.manager.install(repo)).rejects.toMatchObject({ code: 'PLUGIN_NOT_A_PLUGIN' });
    const loaded = await installAndLoad(ws, repo, { allowEmpty: true });
    expect(loaded).toMatchObject({ skills: [], servers: [], codes: [] });
  });

  it('S6: skills that is a file makes skills invalid while MCP still loads; mcp.json that is a folder disables MCP while skills load', async () => {
    const ws = workspace();
    const fileSkills = await installAndLoad(
      ws,
      plugin(ws, { skills: 'not a folder', 'mcp.json': mcp({ tool: { type: 'stdio', command: 'node' } }) }),
    );
    expect(fileSkills.skills).toEqual([]);
    expect(fileSkills.servers).toEqual(['tool']);
    expect(fileSkills.messages).toMatch(/no skill is loaded: skills is not a folder/);
    const other = workspace();
    const folderMcp = await installAndLoad(other, plugin(other, { 'mcp.json': { 'x.json': '{}' } }));
    expect(folderMcp.skills).toEqual(['good']);
    expect(folderMcp.codes).toEqual(['PLUGIN_MCP_DISABLED']);
  });

  it('S8: only immediate children named exactly SKILL.md (a regular file) are skills; deeper ones are reported, not loaded', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        skills: {
          good: skill('good'),
          group: { nested: skill('nested') },
          lower: { 'skill.md': skillMarkdown({ name: 'lower', description: 'wrong case' }) },
          odd: { 'SKILL.md': { 'x.md': 'a folder, not a file' } },
        },
      }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.messages).toMatch(/not loaded: skills\/group\/nested\/SKILL.md/);
  });

  it('S9: a skill that breaks the Agent Skills rules is skipped and reported; the others load', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        skills: {
          good: skill('good'),
          mismatch: skill('other-name'),
          shouting: skill('Shouting'),
          mute: { 'SKILL.md': '---\nname: mute\n---\nNo description.\n' },
          bare: { 'SKILL.md': 'No frontmatter at all.\n' },
        },
      }),
    );
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.codes.filter((code) => code === 'PLUGIN_SKILL_SKIPPED')).toHaveLength(4);
    expect(loaded.messages).toMatch(/skills\/mismatch is skipped: name "other-name" is not the folder's name "mismatch"/);
  });

  it('S10: a SKILL.md or a skill folder linked out of the root is skipped; the others load', async () => {
    const ws = workspace();
    const outside = path.join(ws.work, 'outside');
    fs.mkdirSync(path.join(outside, 'stolen'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'stolen', 'SKILL.md'), skillMarkdown({ name: 'stolen', description: 'SECRET-OUTSIDE' }));
    fs.writeFileSync(path.join(outside, 'SKILL.md'), skillMarkdown({ name: 'linked', description: 'SECRET-OUTSIDE' }));
    const repo = plugin(ws, { skills: { good: skill('good'), linked: { 'README.md': 'x' } } });
    fs.symlinkSync(path.join(outside, 'SKILL.md'), path.join(repo, 'skills', 'linked', 'SKILL.md'));
    fs.symlinkSync(path.join(outside, 'stolen'), path.join(repo, 'skills', 'stolen'));
    gitCommit(repo, {}, 'links out');
    const loaded = await installAndLoad(ws, repo);
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.codes.filter((code) => code === 'PATH_OUTSIDE_ROOT')).toHaveLength(2);
    expect(JSON.stringify(await session(ws))).not.toContain('SECRET-OUTSIDE');
  });

  it('R1: component types Agent Plugins does not define are named once in an info diagnostic, never loaded', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(ws, plugin(ws, { rules: { 'style.md': '# style' }, 'com.example.client': { 'hooks.json': '{}' } }));
    expect(loaded.codes).toEqual(['PLUGIN_PARTS_NOT_LOADED']);
    expect(loaded.messages).toMatch(/does not load rules \(rules\/\)/);
  });
});

describe('Agent Plugins conformance: mcp.json (M1–M4, R2, R3, S11–S19)', () => {
  it('S11: mcp.json targeting another version than plugin.json disables MCP; skills still load', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(ws, plugin(ws, { 'mcp.json': mcp({ tool: { type: 'stdio', command: 'node' } }, MCP_1_1) }));
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.servers).toEqual([]);
    expect(loaded.messages).toMatch(/targets Agent Plugins 1.1.0 but plugin.json targets 1.0.0/);
  });

  it.each([
    ['an extra top-level key', JSON.stringify({ $schema: MCP_1_0, mcpServers: {}, servers: {} }), /only "\$schema" and "mcpServers"/],
    ['no mcpServers', JSON.stringify({ $schema: MCP_1_0 }), /"mcpServers" is missing/],
    ['no $schema', JSON.stringify({ mcpServers: {} }), /"\$schema" is missing/],
    [
      'an unknown version',
      JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/9.9.9/mcp.schema.json', mcpServers: {} }),
      /does not support/,
    ],
    ['broken JSON', '{ "mcpServers": ', /not valid JSON/],
  ])('S12: mcp.json with %s disables MCP; skills still load', async (_what, text, reason) => {
    const ws = workspace();
    const loaded = await installAndLoad(ws, plugin(ws, { 'mcp.json': text }));
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.codes).toEqual(['PLUGIN_MCP_DISABLED']);
    expect(loaded.messages).toMatch(reason);
  });

  it('S12: "mcpServers": {} is valid and declares no server', async () => {
    const ws = workspace();
    expect(await installAndLoad(ws, plugin(ws, { 'mcp.json': mcp({}) }))).toMatchObject({ servers: [], codes: [] });
  });

  it('S13/R2/R3: each bad server entry is skipped on its own; sse is valid but skipped as unsupported; the rest load', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'mcp.json': mcp({
          local: { type: 'stdio', command: 'node', args: ['server.mjs'] },
          remote: { type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'X-Tenant': 'public' } },
          untyped: { command: 'node' },
          unknown: { type: 'websocket', url: 'https://mcp.example.com' },
          extra: { type: 'stdio', command: 'node', timeout: 5 },
          mixed: { type: 'stdio', command: 'node', url: 'https://mcp.example.com' },
          legacy: { type: 'sse', url: 'https://mcp.example.com/sse' },
        }),
      }),
    );
    expect(loaded.servers.sort()).toEqual(['local', 'remote']);
    expect(loaded.skills).toEqual(['good']);
    expect(loaded.codes.filter((code) => code === 'PLUGIN_SERVER_SKIPPED')).toHaveLength(5);
    expect(loaded.messages).toMatch(/"legacy" .* skipped: the legacy HTTP\+SSE transport is not one Loadout supports/);
    expect(loaded.messages).toMatch(/"untyped" .* skipped: "type" must be one of/);
    expect(loaded.messages).toMatch(/"mixed" .* skipped: "url" is not allowed/);
  });

  it('S14: an env key PLUGIN_ROOT or PLUGIN_DATA makes that server invalid', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'mcp.json': mcp({
          root: { type: 'stdio', command: 'node', env: { PLUGIN_ROOT: '/tmp' } },
          data: { type: 'stdio', command: 'node', env: { PLUGIN_DATA: '/tmp' } },
          fine: { type: 'stdio', command: 'node', env: { MODE: 'x' } },
        }),
      }),
    );
    expect(loaded.servers).toEqual(['fine']);
    expect(loaded.messages).toMatch(/"root" .* may not set PLUGIN_ROOT/);
  });

  it('S15/E2: command is one bare name or a ./ path inside the root; ../x, other paths and placeholders are invalid', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        bin: { server: '#!/bin/sh\n' },
        'mcp.json': mcp({
          bundled: { type: 'stdio', command: './bin/server' },
          bare: { type: 'stdio', command: 'node' },
          escapes: { type: 'stdio', command: '../x' },
          sneaky: { type: 'stdio', command: './bin/../../x' },
          relative: { type: 'stdio', command: 'bin/server' },
          absolute: { type: 'stdio', command: '/usr/bin/node' },
          placeholder: { type: 'stdio', command: '${PLUGIN_ROOT}/bin/server' },
        }),
      }),
    );
    expect(loaded.servers.sort()).toEqual(['bare', 'bundled']);
    const root = fs.realpathSync(path.join(ws.places.pluginsDir, 'conformant'));
    expect(loaded.documents.bundled?.command).toBe(path.join(root, 'bin', 'server'));
    expect(loaded.documents.bare?.command).toBe('node');
    expect(loaded.codes.filter((code) => code === 'PLUGIN_SERVER_SKIPPED')).toHaveLength(5);
  });

  it('S16/E3/E4: cwd defaults to the root; ./ and ${PLUGIN_ROOT} forms stay in the root, ${PLUGIN_DATA} in the data folder', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        data: { 'x.txt': 'x' },
        'mcp.json': mcp({
          plain: { type: 'stdio', command: 'node' },
          dotted: { type: 'stdio', command: 'node', cwd: './data' },
          rooted: { type: 'stdio', command: 'node', cwd: '${PLUGIN_ROOT}/data' },
          cached: { type: 'stdio', command: 'node', cwd: '${PLUGIN_DATA}/cache' },
          bare: { type: 'stdio', command: 'node', cwd: 'data' },
          escapes: { type: 'stdio', command: 'node', cwd: './../x' },
          climbs: { type: 'stdio', command: 'node', cwd: '${PLUGIN_ROOT}/../..' },
          leavesData: { type: 'stdio', command: 'node', cwd: '${PLUGIN_DATA}/../other' },
          glued: { type: 'stdio', command: 'node', cwd: '${PLUGIN_ROOT}x' },
        }),
      }),
    );
    expect(loaded.servers.sort()).toEqual(['cached', 'dotted', 'plain', 'rooted']);
    const root = fs.realpathSync(path.join(ws.places.pluginsDir, 'conformant'));
    const data = path.join(ws.places.dataDir, 'plugin-data', 'conformant');
    expect(loaded.documents.plain?.cwd).toBe(root);
    expect(loaded.documents.dotted?.cwd).toBe(path.join(root, 'data'));
    expect(loaded.documents.rooted?.cwd).toBe(path.join(root, 'data'));
    expect(loaded.documents.cached?.cwd).toBe(path.join(data, 'cache'));
    expect(loaded.codes.filter((code) => code === 'PLUGIN_SERVER_SKIPPED')).toHaveLength(5);
  });

  it('S17/M4: remote URLs are absolute https (http only on loopback) with no user or fragment; a header may not repeat in another case', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'mcp.json': mcp({
          secure: { type: 'streamable-http', url: 'https://mcp.example.com/mcp' },
          local: { type: 'streamable-http', url: 'http://localhost:3000/mcp' },
          loopback: { type: 'streamable-http', url: 'http://127.0.0.1:3000/mcp' },
          clear: { type: 'streamable-http', url: 'http://mcp.example.com/mcp' },
          user: { type: 'streamable-http', url: 'https://me:secret@mcp.example.com/mcp' },
          fragment: { type: 'streamable-http', url: 'https://mcp.example.com/mcp#x' },
          relative: { type: 'streamable-http', url: '/mcp' },
          twice: { type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'X-Tenant': 'a', 'x-tenant': 'b' } },
          badName: { type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: { 'Bad Name': 'a' } },
        }),
      }),
    );
    expect(loaded.servers.sort()).toEqual(['local', 'loopback', 'secure']);
    expect(loaded.codes.filter((code) => code === 'PLUGIN_SERVER_SKIPPED')).toHaveLength(6);
    expect(JSON.stringify(await session(ws))).not.toContain('secret');
  });

  it('S18/E1/E5/E6/E8: ${PLUGIN_ROOT} and ${PLUGIN_DATA} are expanded once in args, env values and cwd, never in command, url or headers; the client sets both last', async () => {
    const ws = workspace();
    const loaded = await installAndLoad(
      ws,
      plugin(ws, {
        'mcp.json': mcp({
          local: {
            type: 'stdio',
            command: 'node',
            args: ['${PLUGIN_ROOT}/server.mjs', '--data=${PLUGIN_DATA}/db', '${HOME}', '$PLUGIN_ROOT', '${PLUGIN_ROOT:-x}'],
            env: { CONFIG: '${PLUGIN_ROOT}/config.json', '${PLUGIN_ROOT}': 'key stays', plugin_root: 'other case' },
            cwd: '${PLUGIN_ROOT}',
          },
          remote: { type: 'streamable-http', url: 'https://mcp.example.com/${PLUGIN_ROOT}', headers: { 'X-Root': '${PLUGIN_ROOT}' } },
        }),
      }),
    );
    const root = fs.realpathSync(path.join(ws.places.pluginsDir, 'conformant'));
    const data = path.join(ws.places.dataDir, 'plugin-data', 'conformant');
    expect(loaded.documents.local).toEqual({
      name: 'local',
      command: 'node',
      args: [`${root}/server.mjs`, `--data=${data}/db`, '${HOME}', '$PLUGIN_ROOT', '${PLUGIN_ROOT:-x}'],
      env: {
        CONFIG: `${root}/config.json`,
        '${PLUGIN_ROOT}': 'key stays',
        plugin_root: 'other case',
        PLUGIN_ROOT: root,
        PLUGIN_DATA: data,
      },
      cwd: root,
    });
    expect(loaded.documents.remote).toEqual({
      name: 'remote',
      url: 'https://mcp.example.com/${PLUGIN_ROOT}',
      headers: { 'X-Root': '${PLUGIN_ROOT}' },
    });
    // E1: the data folder exists before any runtime could start the server, and is writable.
    fs.writeFileSync(path.join(data, 'probe'), 'x');
    // The session lists the server as it would run, without its environment's values.
    const listed = (await session(ws)).servers.find((server) => server.id === 'local') as unknown as Record<string, unknown>;
    expect(listed).toMatchObject({
      command: 'node',
      cwd: root,
      args: [`${root}/server.mjs`, `--data=${data}/db`, '${HOME}', '$PLUGIN_ROOT', '${PLUGIN_ROOT:-x}'],
    });
    expect(listed.envKeys).toEqual(['CONFIG', '${PLUGIN_ROOT}', 'plugin_root', 'PLUGIN_ROOT', 'PLUGIN_DATA']);
  });

  it('S20: PLUGIN_DATA survives an update and goes with uninstall', async () => {
    const ws = workspace();
    const repo = plugin(ws, { 'mcp.json': mcp({ local: { type: 'stdio', command: 'node', args: ['${PLUGIN_DATA}'] } }) });
    await installAndLoad(ws, repo);
    const data = path.join(ws.places.dataDir, 'plugin-data', 'conformant');
    fs.writeFileSync(path.join(data, 'state.json'), '{"kept":true}');
    gitCommit(repo, { 'README.md': 'v2' }, 'v2');
    expect(await ws.manager.update(['conformant'])).toEqual([expect.objectContaining({ status: 'updated' })]);
    expect(fs.readFileSync(path.join(data, 'state.json'), 'utf8')).toBe('{"kept":true}');
    ws.manager.uninstall('conformant');
    expect(fs.existsSync(data)).toBe(false);
  });
});
