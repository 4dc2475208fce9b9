import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, processStartTime } from '@loadout/files';
import { stopOrphanGroup } from './processGroup.js';

function spawnGroup(): { leader: number; member: () => number } {
  const child = spawn('bash', ['-c', 'sleep 30 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let member = 0;
  child.stdout.on('data', (data: Buffer) => (member = Number(data.toString().trim())));
  return { leader: child.pid ?? 0, member: () => member };
}

describe('stopOrphanGroup', () => {
  it('stops a process group left behind, members included', async () => {
    const group = spawnGroup();
    await expect.poll(group.member).toBeGreaterThan(0);
    const start = processStartTime(group.leader);
    expect(start).not.toBeNull();
    expect(await stopOrphanGroup(group.leader, start)).toBe(true);
    expect(isProcessAlive(group.leader)).toBe(false);
    await expect.poll(() => isProcessAlive(group.member())).toBe(false);
  });

  it('leaves alone a live process whose start time says it is someone else', async () => {
    const group = spawnGroup();
    await expect.poll(group.member).toBeGreaterThan(0);
    expect(await stopOrphanGroup(group.leader, 'not-its-start-time')).toBe(true);
    expect(isProcessAlive(group.leader)).toBe(true);
    await stopOrphanGroup(group.leader, processStartTime(group.leader));
  });
});
