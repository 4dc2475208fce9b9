import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { clientMcp, REAL_CLIENTS_MS } from './realClients.js';

afterEach(() => removeTestdirs());

const require = createRequire(import.meta.url);

/**
 * A one-tool MCP server on the official SDK that, once started, writes the sha256 of the variable
 * VAULT_TOKEN (and whether MODE came through) to `proof`: the test learns the server got the
 * secret without the value being written anywhere.
 */
function vaultServer(proof: string): string {
  const sdk = (entry: string): string => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${entry}`));
  return [
    `const { McpServer } = require(${sdk('server/mcp.js')});`,
    `const { StdioServerTransport } = require(${sdk('server/stdio.js')});`,
    "const { createHash } = require('node:crypto');",
    `require('node:fs').writeFileSync(${JSON.stringify(proof)}, JSON.stringify({ token: createHash('sha256').update(process.env.VAULT_TOKEN ?? '').digest('hex'), mode: process.env.MODE ?? null }));`,
    "const server = new McpServer({ name: 'vault', version: '1.0.0' });",
    "server.registerTool('ping', { description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));",
    'server.connect(new StdioServerTransport());',
    '',
  ].join('\n');
}

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('a server with a named secret (real Claude Code)', () => {
  it(
    'starts through `loadout mcp run` and gets the value; no file under HOME, no runtime config, no output holds it',
    () => {
      const base = testdir({});
      const home = path.join(base, 'home');
      const workspace = path.join(base, 'workspace');
      const proof = path.join(base, 'proof.json');
      const script = path.join(base, 'server', 'vault.cjs');
      fs.mkdirSync(path.dirname(script), { recursive: true });
      fs.writeFileSync(script, vaultServer(proof));
      fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
      fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
      gitRepo(path.join(workspace, 'capabilities'), {
        servers: {
          'vault.json': `${JSON.stringify({ name: 'Vault', command: 'node', args: [script], env: { MODE: 'plain' }, secrets: { VAULT_TOKEN: 'vault-token' } }, null, 2)}\n`,
        },
      });
      const secret = `vault-${randomBytes(12).toString('hex')}`;
      const outputs: string[] = [];
      const loadout = (args: readonly string[], input = ''): Run => {
        const run = spawnSync(process.execPath, [CLI_ENTRY, ...args], {
          cwd: workspace,
          input,
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: workspace, LANG: 'C.UTF-8' },
          timeout: 60_000,
        });
        outputs.push(run.stdout, run.stderr);
        return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
      };

      // Before the secret is kept, apply writes the entry and says what is missing (its name only).
      const early = loadout(['apply', '--dry-run', '--json']);
      expect(early.status, early.stderr).toBe(0);
      expect(early.stdout).toContain('SECRET_MISSING');

      const set = loadout(['secrets', 'set', 'vault-token'], `${secret}\n`);
      expect(set.status, set.stderr).toBe(0);
      const store = path.join(workspace, '.loadout', 'secrets.json');
      expect((fs.statSync(store).mode & 0o777).toString(8)).toBe('600');
      expect(loadout(['secrets', 'list', '--json']).stdout).toBe(`${JSON.stringify({ secrets: ['vault-token'] }, null, 2)}\n`);

      const applied = loadout(['apply', '--json']);
      expect(applied.status, applied.stderr).toBe(0);
      const verbose = loadout(['apply', '--verbose', '--dry-run']);
      expect(verbose.status, verbose.stderr).toBe(0);

      // The entry starts the server through Loadout and names the secret, never its value.
      const entry = (JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8')) as { mcpServers: Record<string, unknown> })
        .mcpServers.vault as { command: string; args: string[]; env: Record<string, string> };
      expect(entry.command).toBe(process.execPath);
      expect(entry.args).toEqual([
        expect.stringMatching(/cli\/dist\/main\.js$/),
        'mcp',
        'run',
        'vault',
        '--secret',
        'VAULT_TOKEN=vault-token',
        '--',
        'node',
        script,
      ]);
      expect(entry.env).toEqual({ MODE: 'plain', LOADOUT_HOME: workspace });

      // Claude Code starts it through its entry and connects; the server got the value and MODE.
      const listed = clientMcp('claude', home, home, ['list']);
      outputs.push(listed.stdout, listed.stderr);
      expect(listed.stdout).toMatch(/vault: .*✔ Connected/);
      expect(JSON.parse(fs.readFileSync(proof, 'utf8'))).toEqual({
        token: createHash('sha256').update(secret).digest('hex'),
        mode: 'plain',
      });

      // Every file under the scratch HOME and the workspace (the store aside), and every output.
      const holding: string[] = [];
      const walk = (dir: string): void => {
        for (const found of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, found.name);
          if (full === store) continue;
          if (found.isDirectory()) walk(full);
          else if (found.isFile() && fs.readFileSync(full).includes(secret)) holding.push(full);
        }
      };
      walk(home);
      walk(workspace);
      expect(holding).toEqual([]);
      for (const output of outputs) expect(output).not.toContain(secret);
      expect(fs.readFileSync(store, 'utf8')).toContain(secret);

      // Forgotten, the server no longer starts, and says which secret it needs.
      expect(loadout(['secrets', 'remove', 'vault-token']).status).toBe(0);
      const refused = spawnSync(process.execPath, [CLI_ENTRY, ...entry.args.slice(1)], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...entry.env },
        encoding: 'utf8',
        input: '',
      });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('SECRET_NOT_FOUND');
      expect(refused.stderr).toContain('loadout secrets set vault-token');
    },
    REAL_CLIENTS_MS,
  );
});
