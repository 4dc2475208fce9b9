import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ENTRY } from '@loadout/cli/testing';

afterEach(removeTestdirs);

const SKILL = '---\nname: cached-skill\ndescription: Seen with and without the code cache.\n---\nBody.\n';
const dist = path.dirname(CLI_ENTRY);
// The repository's node_modules, where the bundle finds better-sqlite3 (three levels above dist/).
const repositoryModules = path.resolve(dist, '../../../node_modules');

/** Runs `node <entry> <args>` in `home`; the code cache's fate comes on stderr's first line. */
function run(entry: string, home: string, args: readonly string[]) {
  const result = spawnSync(process.execPath, [entry, ...args], {
    cwd: home,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LOADOUT_HOME: home, LOADOUT_DEBUG_CODE_CACHE: '1' },
    timeout: 60_000,
  });
  const [first = '', ...rest] = result.stderr.split('\n');
  return { status: result.status, stdout: result.stdout, stderr: rest.join('\n'), cache: first };
}

/** A copy of the built command (entry, its package.json, bundle, cache), at the same depth, in a folder of its own. */
function copyOfCommand(): { entry: string; cache: string } {
  const place = testdir({ packages: { cli: { 'package.json': fs.readFileSync(path.resolve(dist, '../package.json'), 'utf8') } } });
  fs.symlinkSync(repositoryModules, path.join(place, 'node_modules'));
  const copy = path.join(place, 'packages', 'cli', 'dist');
  fs.mkdirSync(copy);
  let cache = '';
  for (const name of fs.readdirSync(dist)) {
    if (!/^main\.js$|^package\.json$|\.cjs(\.v8cache)?$/.test(name)) continue;
    fs.copyFileSync(path.join(dist, name), path.join(copy, name));
    if (name.endsWith('.v8cache')) cache = path.join(copy, name);
  }
  return { entry: path.join(copy, 'main.js'), cache };
}

const COMMANDS = [['session', '--json'], ['--help'], ['session', '--help'], ['plugins', 'list', '--nope'], ['plugins', 'list', '--json']];

describe('the bundled command and its code cache', () => {
  it('uses the cache the build made beside the bundle', () => {
    const home = testdir({ capabilities: { skills: { 'cached-skill': { 'SKILL.md': SKILL } } } });
    const result = run(CLI_ENTRY, home, ['session', '--json']);
    expect(result.cache).toBe('loadout: code cache accepted');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).skills.map((skill: { id: string }) => skill.id)).toEqual(['cached-skill']);
  });

  it('answers the same, byte for byte, when the cache is made for another place, damaged, foreign or missing', () => {
    const home = testdir({ capabilities: { skills: { 'cached-skill': { 'SKILL.md': SKILL } } } });
    const expected = COMMANDS.map((args) => run(CLI_ENTRY, home, args));
    const { entry, cache } = copyOfCommand();
    const whole = fs.readFileSync(cache);
    const header = whole.subarray(0, whole.indexOf(0x0a) + 1).toString('latin1');
    const damaged = Buffer.from(whole);
    damaged[Math.floor(damaged.length / 2)] = (damaged[Math.floor(damaged.length / 2)] as number) ^ 0xff;
    const otherBundle = Buffer.concat([
      Buffer.from(header.replace(/ [0-9a-f]{64} /, ` ${'0'.repeat(64)} `), 'latin1'),
      whole.subarray(header.length),
    ]);
    const cases: Array<[string, Buffer | undefined, string]> = [
      // Copied as it is: made for the build's place, so not offered to V8 here (issue 37 L12).
      ['made where the build put the bundle', whole, 'moved'],
      ['damaged', damaged, 'foreign'],
      ['truncated', whole.subarray(0, whole.length >> 1), 'foreign'],
      ['made for another bundle', otherBundle, 'foreign'],
      ['missing', undefined, 'absent'],
    ];
    for (const [, bytes, use] of cases) {
      if (bytes === undefined) fs.rmSync(cache, { force: true });
      else fs.writeFileSync(cache, bytes);
      COMMANDS.forEach((args, index) => {
        const result = run(entry, home, args);
        expect(result.cache).toBe(`loadout: code cache ${use}`);
        const { cache: _used, ...answer } = result;
        const { cache: _expectedUse, ...expectedAnswer } = expected[index] as typeof result;
        expect(answer).toEqual(expectedAnswer);
      });
    }
  }, 180_000);

  it('is made again by the build where a restored build brought one made elsewhere, and left alone where it fits', () => {
    const home = testdir({ capabilities: { skills: { 'cached-skill': { 'SKILL.md': SKILL } } } });
    // A copy as Turborepo restores a cached build into another checkout: the cache made where it was built.
    const { entry, cache } = copyOfCommand();
    expect(run(entry, home, ['session', '--json']).cache).toBe('loadout: code cache moved');
    const warm = path.resolve(dist, '../scripts/warmCodeCache.mjs');
    const remade = spawnSync(process.execPath, [warm, '--if-needed', path.dirname(entry)], { encoding: 'utf8', timeout: 120_000 });
    expect(remade.status, remade.stderr).toBe(0);
    const result = run(entry, home, ['session', '--json']);
    expect(result.cache).toBe('loadout: code cache accepted');
    expect(JSON.parse(result.stdout).skills.map((skill: { id: string }) => skill.id)).toEqual(['cached-skill']);
    // Made for here now: asked again, the build keeps it as it is.
    // A remade cache is a new file renamed over the old one: a new inode.
    const made = fs.statSync(cache).ino;
    const again = spawnSync(process.execPath, [warm, '--if-needed', path.dirname(entry)], { encoding: 'utf8', timeout: 120_000 });
    expect(again.status, again.stderr).toBe(0);
    expect(fs.statSync(cache).ino).toBe(made);
  }, 180_000);
});
