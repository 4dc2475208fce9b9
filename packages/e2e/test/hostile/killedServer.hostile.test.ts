import fs from 'node:fs';
import path from 'node:path';
import { taskTree } from '@loadout/jobs/testing';
import { isProcessAlive } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest, workspaceTree } from '../server/support.js';
import { exited, HOSTILE_TOKEN, serveBuilt, stopBuiltServers } from './support.js';

// Items 27 and 13 of the hardening issue, through a server killed with SIGKILL: the run it
// interrupted must leave neither its scratch folder nor a process that left its group behind.

const leftovers: number[] = [];
afterEach(async () => {
  await stopBuiltServers();
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  removeTestdirs();
});

/** Starts a child in a session of its own, says where it works and who it is, then waits long. */
const lingering = `
import fs from 'node:fs';
import { spawn } from 'node:child_process';
const { file } = JSON.parse(fs.readFileSync(0, 'utf8'));
const daemon = spawn('setsid', ['sleep', '300'], { stdio: 'ignore' });
daemon.unref();
fs.writeFileSync(file, JSON.stringify({ cwd: process.cwd(), task: process.pid, daemon: daemon.pid }));
setTimeout(() => undefined, 120_000);
`;

describe('27 a server killed with SIGKILL', () => {
  it('27 leaves the interrupted run a scratch folder and processes that the next start removes', async () => {
    const home = testdir(workspaceTree({ linger: taskTree({ name: 'Linger', implementation: 'run.mjs' }, { 'run.mjs': lingering }) }));
    const file = path.join(testdir(), 'where.json');
    const first = await serveBuilt(home, ['--workers', '1']);
    const run = await sendRequest(first.port, 'POST', '/api/tasks/linger/runs', { body: { input: { file } }, token: HOSTILE_TOKEN });
    expect(run.status).toBe(202);
    await expect.poll(() => fs.existsSync(file), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => fs.readFileSync(file, 'utf8').endsWith('}'), { timeout: 5_000 }).toBe(true);
    const where = JSON.parse(fs.readFileSync(file, 'utf8')) as { cwd: string; task: number; daemon: number };
    leftovers.push(where.task, where.daemon);
    expect(path.basename(where.cwd)).toMatch(/^loadout-run-/);

    first.child.kill('SIGKILL');
    await exited(first.child);
    // Killed outright, the server removed nothing: its run is still there.
    expect(fs.existsSync(where.cwd)).toBe(true);
    expect(isProcessAlive(where.daemon)).toBe(true);

    const second = await serveBuilt(home, ['--workers', '1']);
    expect(fs.existsSync(where.cwd)).toBe(false);
    expect(isProcessAlive(where.task)).toBe(false);
    await expect.poll(() => isProcessAlive(where.daemon), { timeout: 2_000 }).toBe(false);
    const job = (
      await sendRequest(second.port, 'GET', `/api/jobs/${(run.body as { job: { id: number } }).job.id}`, { token: HOSTILE_TOKEN })
    ).body;
    expect(job).toMatchObject({ status: 'failed', error: 'server stopped while running' });
  });
});
