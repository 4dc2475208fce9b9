import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest, workspaceTree } from '../server/support.js';
import { HOSTILE_TOKEN, serveBuilt, stopBuiltServers } from './support.js';

// S1 of the hardening issue: when the system refused file watches, the server's watch cache
// stopped telling of changes and nothing said so. The refusal is real here: the built server runs
// in a user namespace of its own whose inotify limit (`/proc/sys/user/max_inotify_watches`, which
// Linux counts per user namespace) is set below what the workspace needs.

afterEach(async () => {
  await stopBuiltServers();
  removeTestdirs();
});

const LIMIT = 8;
/** Runs the command after it in a user namespace whose inotify watch limit is {@link LIMIT}. */
const LIMITED = ['unshare', '-Ur', 'sh', '-c', `echo ${LIMIT} > /proc/sys/user/max_inotify_watches && exec "$@"`, 'sh'];
const canLimit = spawnSync(LIMITED[0] as string, [...LIMITED.slice(1), 'true']).status === 0;

interface SessionAnswer {
  readonly skills: readonly { readonly name: string; readonly description: string }[];
  readonly diagnostics: readonly { readonly code: string; readonly severity: string; readonly message: string }[];
}

describe('S1 the system refuses file watches', () => {
  it.skipIf(!canLimit)('S1 the server says so with the limit and how to raise it, and still serves every edit', async () => {
    const skills: Record<string, TreeDescription> = {};
    for (let s = 0; s < 30; s += 1) skills[`s${s}`] = { 'SKILL.md': `---\nname: s${s}\ndescription: version 1\n---\nBody.\n` };
    const tree = workspaceTree();
    const home = testdir({ ...tree, capabilities: { ...(tree.capabilities as TreeDescription), skills } });
    // Old enough for the stamps of unwatched documents to be trusted at once.
    await new Promise((done) => setTimeout(done, 1100));
    const server = await serveBuilt(home, [], {}, LIMITED);
    const session = async (): Promise<SessionAnswer> => {
      const answer = await sendRequest(server.port, 'GET', '/api/session', { token: HOSTILE_TOKEN });
      expect(answer.status).toBe(200);
      return answer.body as SessionAnswer;
    };

    const first = await session();
    expect(first.skills.filter((skill) => skill.description === 'version 1')).toHaveLength(30);
    const refused = first.diagnostics.filter((diagnostic) => diagnostic.code === 'WATCH_LIMIT_REACHED');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.severity).toBe('warning');
    expect(refused[0]?.message).toContain(`fs.inotify.max_user_watches is ${LIMIT}`);
    expect(refused[0]?.message).toContain('sudo sysctl fs.inotify.max_user_watches=');

    // An edit that keeps the size, in a folder the server could not watch, and a removed skill.
    fs.writeFileSync(path.join(home, 'capabilities/skills/s29/SKILL.md'), '---\nname: s29\ndescription: version 2\n---\nBody.\n');
    fs.rmSync(path.join(home, 'capabilities/skills/s28'), { recursive: true });
    const second = await session();
    expect(second.skills.find((skill) => skill.name === 's29')?.description).toBe('version 2');
    expect(second.skills.some((skill) => skill.name === 's28')).toBe(false);
    expect(second.diagnostics.filter((diagnostic) => diagnostic.code === 'WATCH_LIMIT_REACHED')).toHaveLength(1);
  });
});

describe('S1 a spent watch budget and requests that come together', () => {
  it('S1 with LOADOUT_WATCH_BUDGET=0, revalidations sent at once are 304 while nothing changed, and every one sent after an edit gets the new body', async () => {
    const skills: Record<string, TreeDescription> = {};
    for (let s = 0; s < 20; s += 1) skills[`s${s}`] = { 'SKILL.md': `---\nname: s${s}\ndescription: version 1\n---\nBody.\n` };
    const tree = workspaceTree();
    const home = testdir({ ...tree, capabilities: { ...(tree.capabilities as TreeDescription), skills } });
    await new Promise((done) => setTimeout(done, 1100));
    const server = await serveBuilt(home, [], { LOADOUT_WATCH_BUDGET: '0' });
    const first = await sendRequest(server.port, 'GET', '/api/session', { token: HOSTILE_TOKEN });
    const etag = first.headers.etag as string;
    const together = () =>
      Promise.all(
        Array.from({ length: 6 }, () =>
          sendRequest(server.port, 'GET', '/api/session', { token: HOSTILE_TOKEN, headers: { 'if-none-match': etag } }),
        ),
      );
    expect((await together()).map((answer) => answer.status)).toEqual([304, 304, 304, 304, 304, 304]);

    // The same size, in a folder nothing watches: only the document's own stat tells.
    fs.writeFileSync(path.join(home, 'capabilities/skills/s7/SKILL.md'), '---\nname: s7\ndescription: version 2\n---\nBody.\n');
    const after = await together();
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const answer of after)
      expect((answer.body as SessionAnswer).skills.find((skill) => skill.name === 's7')?.description).toBe('version 2');
  });
});
