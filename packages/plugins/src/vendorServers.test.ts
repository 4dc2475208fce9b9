import fs from 'node:fs';
import path from 'node:path';
import { nodeFileReader } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readAgentPluginsServers } from './agentPluginsServers.js';
import { readInlineVendorServers } from './vendorServers.js';

afterEach(removeTestdirs);

function places() {
  const work = testdir({ plugins: { chat: { 'server.mjs': '\n', bin: { run: '\n' } } }, 'plugin-data': { chat: {} } });
  const root = path.join(work, 'plugins', 'chat');
  return { plugin: 'chat', root, realRoot: root, data: path.join(work, 'plugin-data', 'chat') };
}

describe('vendor (Claude Code, Codex, Cursor) servers', () => {
  it('37 L9 skips a server whose command, cwd or an argument is built on ${CLAUDE_PLUGIN_ROOT} or ./ and leaves the plugin', () => {
    const at = places();
    const read = readInlineVendorServers(
      at,
      path.join(at.root, '.mcp.json'),
      {
        command: { command: '${CLAUDE_PLUGIN_ROOT}/../../../bin/sh' },
        dotCommand: { command: './bin/../../x' },
        cwd: { command: 'node', cwd: '${CLAUDE_PLUGIN_ROOT}/../..' },
        relativeCwd: { command: 'node', cwd: '../..' },
        dataCwd: { command: 'node', cwd: '${CLAUDE_PLUGIN_DATA}/../other' },
        arg: { command: 'node', args: ['--require=${CLAUDE_PLUGIN_ROOT}/../other/x.js'] },
        inside: {
          command: '${CLAUDE_PLUGIN_ROOT}/bin/run',
          args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs', '--root=${CLAUDE_PLUGIN_ROOT}'],
          cwd: '${CLAUDE_PLUGIN_DATA}',
        },
        system: { command: '/usr/bin/node', args: ['x'], cwd: '/tmp' },
      },
      nodeFileReader,
    );
    expect(read.documents.map((document) => document.name)).toEqual(['inside.json', 'system.json']);
    const skipped = read.diagnostics.map((diagnostic) => diagnostic.message.replace(/^.*MCP server "([^"]+)".*: (.*)$/, '$1: $2'));
    expect(skipped).toEqual([
      'command: "command" "${CLAUDE_PLUGIN_ROOT}/../../../bin/sh" leads outside the plugin',
      'dotCommand: "command" "./bin/../../x" leads outside the plugin',
      'cwd: "cwd" "${CLAUDE_PLUGIN_ROOT}/../.." leads outside the plugin',
      'relativeCwd: "cwd" "../.." leads outside the plugin',
      'dataCwd: "cwd" "${CLAUDE_PLUGIN_DATA}/../other" leads outside the plugin',
      'arg: "args" "--require=${CLAUDE_PLUGIN_ROOT}/../other/x.js" leads outside the plugin',
    ]);
  });

  it('37 L9 the Agent Plugins reader refuses an argument built on ${PLUGIN_ROOT} that leaves the plugin the same way', () => {
    const at = places();
    fs.writeFileSync(
      path.join(at.root, 'mcp.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json',
        mcpServers: {
          arg: { type: 'stdio', command: 'node', args: ['${PLUGIN_ROOT}/../other/server.mjs'] },
          inside: { type: 'stdio', command: 'node', args: ['${PLUGIN_ROOT}/server.mjs', '--cache=${PLUGIN_DATA}/cache'] },
        },
      }),
    );
    const read = readAgentPluginsServers(at, '1.0.0', nodeFileReader);
    expect(read.documents.map((document) => document.name)).toEqual(['inside.json']);
    expect(read.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      expect.stringMatching(/"arg" in mcp.json is skipped: "args" "\$\{PLUGIN_ROOT\}\/..\/other\/server.mjs" leads outside the plugin/),
    ]);
  });
});
