import fs from 'node:fs';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest, workspaceTree } from '../server/support.js';
import { HOSTILE_TOKEN, serveBuilt, stopBuiltServers } from './support.js';

// Item 7 of the hardening issue, measured on the built server as the audit did: every distinct
// `?project=` added file watches and cached scans for the life of the server.

afterEach(async () => {
  await stopBuiltServers();
  removeTestdirs();
});

const SKILLS = 20;
/** The watches one cached project holds: its `.agents`, its `skills/`, one per skill folder. */
const WATCHES_PER_PROJECT = SKILLS + 2;
/** Roots the cache keeps besides those of the session being opened (its default). */
const SPARE_ROOTS = 16;

function project(n: number): string {
  const skills: Record<string, TreeDescription> = {};
  for (let s = 0; s < SKILLS; s += 1)
    skills[`p${n}-s${s}`] = { 'SKILL.md': `---\nname: p${n}-s${s}\ndescription: skill ${s} of project ${n}\n---\nBody.\n` };
  return testdir({ '.agents': { skills } });
}

/** The inotify watches a process holds, read from `/proc/<pid>/fdinfo`. */
function inotifyWatches(pid: number): number {
  let count = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fdinfo`)) {
    let info: string;
    try {
      info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    } catch {
      continue;
    }
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}

/** Resident memory in MiB, from `/proc/<pid>/status`. */
function residentMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

describe('7 many projects asked of one server', () => {
  it('7 hold the watches and memory of a bounded number of projects', async () => {
    const home = testdir(workspaceTree());
    const projects = Array.from({ length: 60 }, (_, n) => project(n));
    const server = await serveBuilt(home);
    const pid = server.child.pid as number;
    const open = async (dir: string): Promise<void> => {
      const answer = await sendRequest(server.port, 'GET', `/api/session?project=${encodeURIComponent(dir)}`, { token: HOSTILE_TOKEN });
      expect(answer.status).toBe(200);
    };
    await sendRequest(server.port, 'GET', '/api/session', { token: HOSTILE_TOKEN });
    const ownerOnly = inotifyWatches(pid);

    const watches: number[] = [];
    const memory: number[] = [];
    for (const dir of projects) {
      await open(dir);
      watches.push(inotifyWatches(pid));
      memory.push(residentMiB(pid));
    }
    const bound = ownerOnly + (1 + SPARE_ROOTS) * WATCHES_PER_PROJECT;
    expect(Math.max(...watches)).toBeLessThanOrEqual(bound);
    expect(watches.at(-1)).toBe(watches[19]);
    // Memory settles too: the last forty projects cost little more than the first twenty did.
    expect((memory.at(-1) as number) - (memory[19] as number)).toBeLessThan(48);
  });
});
