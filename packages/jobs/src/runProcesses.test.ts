import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '@loadout/files';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeScratchFolder,
  newRunId,
  processesBefore,
  removeEmptyScratchFolder,
  removeScratchFolder,
  RUN_ID_VARIABLE,
  RunProcesses,
} from './runProcesses.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** Starts `sleep` in a session of its own with `env`, as a run's daemon would be; resolves once it runs. */
async function daemon(env: Record<string, string>): Promise<number> {
  const child = spawn('sleep', ['300'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, detached: true, stdio: 'ignore' });
  started.push(child);
  await new Promise((done, fail) => {
    child.once('spawn', done);
    child.once('error', fail);
  });
  return child.pid as number;
}

/** The pid of a process that has already exited: a run whose leader is gone, so only the scan can find what it left. */
function goneLeader(): number {
  return spawnSync('true').pid;
}

describe('RunProcesses.killAll', () => {
  it('finds a process by its run id whatever the size of its environment, after a snapshot taken before it started', async () => {
    const runId = newRunId();
    // An earlier run's end leaves a snapshot; this one is taken before the daemon starts, as the runner takes it before the spawn.
    await new RunProcesses(newRunId(), goneLeader()).killAll();
    const older = processesBefore();
    // Several times the scan's first buffer (one variable may hold at most 128 KiB), the run id last.
    const big = Object.fromEntries(['A', 'B', 'C'].map((name) => [`BIG_${name}`, 'x'.repeat(100_000)]));
    const pid = await daemon({ ...big, [RUN_ID_VARIABLE]: runId });

    expect(await new RunProcesses(runId, goneLeader(), older).killAll()).toBeGreaterThanOrEqual(1);
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('finds the daemons of one run after another run ended and took a newer snapshot', async () => {
    const first = newRunId();
    const second = newRunId();
    const olderThanFirst = processesBefore();
    const firstPid = await daemon({ [RUN_ID_VARIABLE]: first });
    const olderThanSecond = processesBefore();
    const secondPid = await daemon({ [RUN_ID_VARIABLE]: second });

    // The second run ends first; its scan is the newest snapshot, and it holds the first run's daemon.
    await new RunProcesses(second, goneLeader(), olderThanSecond).killAll();
    expect(isProcessAlive(secondPid)).toBe(false);
    expect(isProcessAlive(firstPid)).toBe(true);
    expect(processesBefore().has(firstPid)).toBe(true);

    // The first run still judges by the snapshot it took before its own start.
    await new RunProcesses(first, goneLeader(), olderThanFirst).killAll();
    expect(isProcessAlive(firstPid)).toBe(false);
  });

  it('leaves alone a process whose environment only mentions the run id inside another value', async () => {
    const runId = newRunId();
    const older = processesBefore();
    const pid = await daemon({ NOTE: `${RUN_ID_VARIABLE}=${runId}` });

    expect(await new RunProcesses(runId, goneLeader(), older).killAll()).toBe(0);
    expect(isProcessAlive(pid)).toBe(true);
  });
});

describe('removeScratchFolder', () => {
  it('removes an empty scratch folder, and one the task filled', () => {
    const empty = makeScratchFolder(newRunId());
    removeScratchFolder(empty);
    expect(fs.existsSync(empty)).toBe(false);

    const filled = makeScratchFolder(newRunId());
    fs.mkdirSync(path.join(filled, 'out', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(filled, 'out', 'deep', 'file.txt'), 'left behind');
    removeScratchFolder(filled);
    expect(fs.existsSync(filled)).toBe(false);
    expect(filled.startsWith(os.tmpdir())).toBe(true);
  });

  it('is fine when the folder is already gone', () => {
    const dir = makeScratchFolder(newRunId());
    fs.rmdirSync(dir);
    expect(() => removeScratchFolder(dir)).not.toThrow();
  });
});

describe('removeEmptyScratchFolder', () => {
  it('removes an empty folder, says a gone one is gone, and leaves a filled one for removeScratchFolder', async () => {
    const empty = makeScratchFolder(newRunId());
    expect(await removeEmptyScratchFolder(empty)).toBe(true);
    expect(fs.existsSync(empty)).toBe(false);
    expect(await removeEmptyScratchFolder(empty)).toBe(true);

    const filled = makeScratchFolder(newRunId());
    fs.writeFileSync(path.join(filled, 'left.txt'), 'left behind');
    expect(await removeEmptyScratchFolder(filled)).toBe(false);
    expect(fs.readFileSync(path.join(filled, 'left.txt'), 'utf8')).toBe('left behind');
    removeScratchFolder(filled);
    expect(fs.existsSync(filled)).toBe(false);
  });
});
