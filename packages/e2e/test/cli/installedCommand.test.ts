import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '@loadout/cli/testing';

afterEach(removeTestdirs);

const INSTALL_BIN = path.resolve(path.dirname(CLI_ENTRY), '../../../scripts/install-bin.sh');
// A file of that name need not exist: the variable is only carried, never read by these programs.
const CA_FILE = '/etc/ssl/certs/a bundle with spaces & $signs.pem';

let bin = '';
beforeAll(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-installed-command-'));
  const install = spawnSync('bash', [INSTALL_BIN, bin], { encoding: 'utf8' });
  expect(install.status, install.stderr).toBe(0);
  return () => fs.rmSync(bin, { recursive: true, force: true });
});

/**
 * Runs the installed `loadout mcp run probe -- sh -c …` with `env` besides PATH and a scratch HOME;
 * the server it starts prints what it got and what its parent, Loadout's own node process, started with.
 */
function startedThroughLoadout(env: Record<string, string>) {
  const home = testdir({});
  const probe = [
    'printf "child=%s\\n" "${NODE_EXTRA_CA_CERTS-<unset>}"',
    'printf "child-carrier=%s\\n" "${LOADOUT_NODE_EXTRA_CA_CERTS-<unset>}"',
    // $PPID is the node process `loadout mcp run` is; /proc keeps the environment it was started with.
    'tr "\\0" "\\n" < /proc/$PPID/environ | grep -E "^(LOADOUT_)?NODE_EXTRA_CA_CERTS=" | sed "s/^/loadout-started-with:/" || true',
  ].join('; ');
  const run = spawnSync(path.join(bin, 'loadout'), ['mcp', 'run', 'probe', '--', 'sh', '-c', probe], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: home, ...env },
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim().split('\n');
}

describe('the installed loadout command and NODE_EXTRA_CA_CERTS', () => {
  it.skipIf(!fs.existsSync('/proc/self/environ'))(
    'starts its own node without it and hands it, unchanged, to every program it starts',
    () => {
      expect(startedThroughLoadout({ NODE_EXTRA_CA_CERTS: CA_FILE })).toEqual([
        `child=${CA_FILE}`,
        'child-carrier=<unset>',
        `loadout-started-with:LOADOUT_NODE_EXTRA_CA_CERTS=${CA_FILE}`,
      ]);
    },
  );

  it('adds nothing when the caller has none', () => {
    expect(startedThroughLoadout({}).slice(0, 2)).toEqual(['child=<unset>', 'child-carrier=<unset>']);
  });

  it('leaves an empty value as it is: Node reads an empty one as none', () => {
    expect(startedThroughLoadout({ NODE_EXTRA_CA_CERTS: '' }).slice(0, 2)).toEqual(['child=', 'child-carrier=<unset>']);
  });
});
