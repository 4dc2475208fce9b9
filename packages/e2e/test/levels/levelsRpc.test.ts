import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type LevelsWorkspace, levelsWorkspace, skillText } from '@loadout/levels/testing';

const CLI = CLI_ENTRY;
const TOKEN = 'levels-rpc-test-token';
const servers: ChildProcess[] = [];

afterEach(async () => {
  for (const child of servers.splice(0)) {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
  }
  removeTestdirs();
});

/** Starts the real `loadout serve` on a free port and resolves with its URL. */
async function serve(ws: LevelsWorkspace): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--json'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LOADOUT_HOME: ws.places.home,
      LOADOUT_DATA_DIR: ws.places.dataDir,
      LOADOUT_TOKEN: TOKEN,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let out = '';
  return new Promise((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      try {
        done((JSON.parse(out) as { url: string }).url);
      } catch {
        // not the whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`loadout serve exited with ${code}: ${out}`)));
  });
}

async function rpc(
  url: string,
  method: string,
  params: unknown,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: { code: string } } }> {
  const response = await fetch(`${url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

describe('skills.transfer and mcp.transfer over JSON-RPC', () => {
  it('move documents through the running server and refuse a project end without a path', async () => {
    const ws = levelsWorkspace({
      capabilities: { skills: { pdf: { 'SKILL.md': skillText('pdf', 'global') } } },
      project: {
        skills: { pdf: { 'SKILL.md': skillText('pdf', 'project'), 'forms.md': '# Forms\n' } },
        servers: { 'gh.json': JSON.stringify({ name: 'GitHub', url: 'https://gh.example/mcp' }) },
      },
    });
    const url = await serve(ws);

    const skill = await rpc(url, 'skills.transfer', {
      id: 'pdf',
      from: { level: 'project', projectPath: ws.project },
      to: { level: 'global' },
    });
    expect(skill.result).toMatchObject({ moved: true, record: { id: 'pdf-2', name: 'pdf (2)', level: 'global' } });
    expect(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'skills/pdf-2/forms.md'), 'utf8')).toBe('# Forms\n');

    const server = await rpc(url, 'mcp.transfer', {
      id: 'gh',
      from: { level: 'project', projectPath: ws.project },
      to: { level: 'project', projectPath: ws.other },
    });
    expect(server.result).toMatchObject({
      moved: true,
      record: { kind: 'server', id: 'gh', level: 'project', path: path.join(ws.other, '.agents/servers/gh.json') },
    });

    const refused = await rpc(url, 'mcp.transfer', { id: 'gh', from: { level: 'project' }, to: { level: 'global' } });
    expect(refused.error).toMatchObject({ code: -32602, data: { code: 'CAPABILITY_INVALID' } });
    const missing = await rpc(url, 'skills.transfer', {
      id: 'nope',
      from: { level: 'global' },
      to: { level: 'project', projectPath: ws.project },
    });
    expect(missing.error).toMatchObject({ data: { code: 'CAPABILITY_NOT_FOUND' } });
  });
});
