import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { exitWithin, get, loadout, serve, skill, stopServers, workspace } from './coreSupport.js';

/**
 * The data folder as another local user, a crash or a bad disk leaves it: open to others,
 * truncated, damaged, read-only. Each case names the issue-11 item it covers.
 */

afterEach(async () => {
  await stopServers();
  removeTestdirs();
});

const modeOf = (target: string) => fs.statSync(target).mode & 0o777;

/** Every regular file under `dir`, with its mode. */
function filesIn(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) found[path.relative(dir, full)] = modeOf(full).toString(8);
  }
  return found;
}

function withSwitchedOffSkill() {
  const ws = workspace({ capabilities: { skills: { pdf: { 'SKILL.md': skill('pdf') }, notes: { 'SKILL.md': skill('notes') } } } });
  expect(loadout(ws.home, ['capability', 'set', 'skill/pdf', '--disable']).status).toBe(0);
  return { ...ws, db: path.join(ws.dataDir, 'loadout.db') };
}

describe('hostile data folders, end to end', () => {
  it('11.8 the data folder is 0700 and every file Loadout keeps in it 0600', async () => {
    const ws = withSwitchedOffSkill();
    const served = await serve(ws.home, { tokenFile: true });
    expect((await get(served, '/api/health')).status).toBe(200);
    const whileServing = filesIn(ws.dataDir);
    served.child.kill('SIGTERM');
    await exitWithin(served.child, 10_000);

    expect(modeOf(ws.dataDir)).toBe(0o700);
    expect(Object.keys(whileServing)).toEqual(expect.arrayContaining(['loadout.db', 'server-token']));
    expect(Object.entries(whileServing).filter(([, mode]) => mode !== '600')).toEqual([]);
  });

  it('11.8 a data folder an older Loadout left open to others is narrowed at the next command', () => {
    const ws = withSwitchedOffSkill();
    fs.chmodSync(ws.dataDir, 0o755);
    fs.chmodSync(ws.db, 0o644);
    expect(loadout(ws.home, ['session', '--json']).status).toBe(0);
    expect([modeOf(ws.dataDir), modeOf(ws.db)]).toEqual([0o700, 0o600]);
  });

  it('11.20 a damaged database: every command says so plainly and changes nothing', () => {
    const ws = withSwitchedOffSkill();
    const garbage = Buffer.from('not a database at all '.repeat(400));
    fs.writeFileSync(ws.db, garbage);
    for (const args of [
      ['session', '--json'],
      ['capability', 'state', '--json'],
      ['tasks', 'list', '--json'],
    ]) {
      const run = loadout(ws.home, args);
      expect(run.status, args.join(' ')).toBe(1);
      const { error } = run.json<{ error: { code: string; message: string } }>();
      expect(error.code).toBe('DATABASE_CORRUPT');
      expect(error.message).toMatch(/loadout\.db is not a Loadout database or is damaged .*nothing was changed/);
      expect(error.message + run.stderr).not.toMatch(/inject|constructor|dependency/i);
    }
    expect(fs.readFileSync(ws.db).equals(garbage)).toBe(true);
  });

  it('11.20 a 0-byte database is refused, never silently reset', () => {
    const ws = withSwitchedOffSkill();
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${ws.db}${suffix}`, { force: true });
    fs.truncateSync(ws.db, 0);
    const run = loadout(ws.home, ['capability', 'state', '--json']);
    expect(run.status).toBe(1);
    expect(run.json<{ error: { code: string; message: string } }>().error).toMatchObject({
      code: 'DATABASE_EMPTY',
      message: expect.stringMatching(/loadout\.db is empty \(0 bytes\).*nothing was changed/),
    });
    expect(fs.statSync(ws.db).size).toBe(0);
  });

  it('11.20 a database this user may not write is a clear error', () => {
    const ws = withSwitchedOffSkill();
    const asRoot = process.getuid?.() === 0;
    // Readable by everyone, writable by its owner only; as root, the command runs as nobody.
    fs.chmodSync(ws.home, 0o755);
    fs.chmodSync(ws.dataDir, asRoot ? 0o755 : 0o555);
    fs.chmodSync(ws.db, asRoot ? 0o644 : 0o444);
    try {
      const run = loadout(ws.home, ['capability', 'state', '--json'], { user: asRoot ? { uid: 65534, gid: 65534 } : null });
      expect(run.status).toBe(1);
      expect(run.json<{ error: { code: string; message: string } }>().error).toMatchObject({
        code: 'DATABASE_READ_ONLY',
        message: expect.stringMatching(/loadout\.db cannot be written by this user/),
      });
    } finally {
      fs.chmodSync(ws.dataDir, 0o700);
    }
  });
});
