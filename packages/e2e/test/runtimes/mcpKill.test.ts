import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { machine, type Machine, serverDocument } from '@loadout/runtimes/testing';

const CLI = CLI_ENTRY;

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
});

afterEach(() => removeTestdirs());

/**
 * Runs the built `loadout` and kills it with SIGKILL as soon as `killWhen` says so (checked every
 * few milliseconds), or lets it finish when there is no such moment.
 */
function loadout(
  m: Machine,
  args: readonly string[],
  killWhen: (() => boolean) | null,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: m.base,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...m.env,
        LOADOUT_HOME: m.places.home,
        LOADOUT_CAPABILITIES_DIR: m.places.capabilitiesDir,
        LOADOUT_DATA_DIR: m.places.dataDir,
      },
      stdio: 'ignore',
    });
    const timer = killWhen === null ? null : setInterval(() => killWhen() && child.kill('SIGKILL'), 2);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      if (timer !== null) clearInterval(timer);
      done({ code, signal });
    });
  });
}

const SERVERS = 40;
const expectedClaude = (index: number) => ({
  type: 'stdio',
  command: 'node',
  args: [`/opt/server-${index}.js`],
  env: { INDEX: String(index) },
});
const expectedCodex = (index: number) => ({ command: 'node', args: [`/opt/server-${index}.js`], env: { INDEX: String(index) } });

describe('an apply killed at any moment', () => {
  it('never leaves a half-written client configuration, and the next apply settles everything', async () => {
    const mine = { type: 'stdio', command: 'node', args: ['/opt/mine.js'], env: {} };
    const m = machine({
      home: {
        '.claude': { '.claude.json': JSON.stringify({ numStartups: 1, mcpServers: { mine } }, null, 2) },
        '.codex': { 'config.toml': '# mine\n[mcp_servers.mine]\ncommand = "node"\n' },
      },
    });
    const serversDir = path.join(m.places.capabilitiesDir, 'servers');
    const claudeFile = path.join(m.home, '.claude', '.claude.json');
    const codexFile = path.join(m.home, '.codex', 'config.toml');
    const args = ['apply', '--runtime', 'claude-code', '--runtime', 'codex', '--json'];
    const manifest = path.join(m.places.dataDir, 'runtimes', 'mcp-manifest.json');
    const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    let killed = 0;
    for (let round = 0; round < 12; round += 1) {
      if (round % 2 === 0) {
        fs.mkdirSync(serversDir, { recursive: true });
        for (let index = 0; index < SERVERS; index += 1) {
          fs.writeFileSync(
            path.join(serversDir, `s${index}.json`),
            serverDocument({ command: 'node', args: [`/opt/server-${index}.js`], env: { INDEX: String(index) } }),
          );
        }
      } else {
        fs.rmSync(serversDir, { recursive: true, force: true });
      }
      // Four moments, in turn: a write recorded as pending; each client file just rewritten; anywhere in the run.
      const claudeBefore = read(claudeFile);
      const codexBefore = read(codexFile);
      const started = Date.now();
      const moments = [
        () => read(manifest).includes('"pending"'),
        () => read(claudeFile) !== claudeBefore,
        () => read(codexFile) !== codexBefore,
        () => Date.now() - started > 500 + round * 50,
      ];
      const run = await loadout(m, args, moments[round % moments.length] as () => boolean);
      if (run.signal === 'SIGKILL') {
        killed += 1;
        // A dead process's locks count as stale only after their stale time; the test does not wait for it.
        fs.rmSync(path.join(m.places.dataDir, 'runtimes.lock'), { recursive: true, force: true });
        fs.rmSync(`${claudeFile}.lock`, { recursive: true, force: true });
      }

      // Whatever the moment: each file parses, the user's entry is whole, each of Loadout's is whole or absent.
      const claude = (JSON.parse(fs.readFileSync(claudeFile, 'utf8')) as { numStartups: number; mcpServers: Record<string, unknown> })
        .mcpServers;
      const codex = (parseToml(fs.readFileSync(codexFile, 'utf8')) as { mcp_servers: Record<string, unknown> }).mcp_servers;
      expect(claude.mine).toEqual(mine);
      expect(codex.mine).toEqual({ command: 'node' });
      for (let index = 0; index < SERVERS; index += 1) {
        if (claude[`s${index}`] !== undefined) expect(claude[`s${index}`]).toEqual(expectedClaude(index));
        if (codex[`s${index}`] !== undefined) expect(codex[`s${index}`]).toEqual(expectedCodex(index));
      }
    }
    expect(killed).toBeGreaterThan(0);

    // Servers off: the next complete apply leaves exactly the user's entries, and a check agrees.
    expect((await loadout(m, args, null)).code).toBe(0);
    expect((await loadout(m, [...args.slice(0, -1), '--check'], null)).code).toBe(0);
    expect(Object.keys((JSON.parse(fs.readFileSync(claudeFile, 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['mine']);
    expect(fs.readFileSync(codexFile, 'utf8')).toBe('# mine\n[mcp_servers.mine]\ncommand = "node"\n');
    if (fs.existsSync(manifest)) expect(JSON.parse(fs.readFileSync(manifest, 'utf8'))).toMatchObject({ entries: [] });
  }, 180_000);
});
