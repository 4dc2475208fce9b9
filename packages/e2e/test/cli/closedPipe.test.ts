import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '@loadout/cli/testing';

afterEach(removeTestdirs);

describe('a reader that closes the pipe early', () => {
  it('leaves the command to finish quietly: no stack trace, its work done', () => {
    const home = testdir({
      capabilities: {
        skills: { 'piped-skill': { 'SKILL.md': '---\nname: piped-skill\ndescription: Seen through a closed pipe.\n---\nBody.\n' } },
      },
    });
    // `true` exits at once, so every write of the command meets a pipe with no reader.
    const run = spawnSync(
      'bash',
      ['-c', 'node "$0" session --json | true; echo "status=${PIPESTATUS[0]}" >&2; node "$0" plugins list --json | true', CLI_ENTRY],
      {
        cwd: home,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: home },
        timeout: 60_000,
      },
    );
    expect(run.stderr).toBe('status=0\n');
    expect(run.status).toBe(0);
    // The command still did what it does before answering: its database is there.
    expect(fs.existsSync(path.join(home, '.loadout'))).toBe(true);
  });
});
