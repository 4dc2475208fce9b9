import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTestdirs, testdir } from './testing/index.js';
import { writeFileAtomicSync, WriteRefusedError } from './writeFileAtomic.js';

afterEach(removeTestdirs);

/** The code of what `write` throws. */
function codeOf(write: () => unknown): string | undefined {
  try {
    write();
  } catch (error) {
    expect(error).toBeInstanceOf(WriteRefusedError);
    return (error as WriteRefusedError).code;
  }
  return undefined;
}

/** What is left in `dir` besides `names`: a temporary file would show here. */
const others = (dir: string, ...names: string[]): string[] => fs.readdirSync(dir).filter((name) => !names.includes(name));

describe('writeFileAtomicSync: the one atomic write', () => {
  it('37 F1 refuses a link in the file’s place and leaves what it leads to as it was', () => {
    const root = testdir({ servers: { 'docs.json': '{"name":"docs"}\n' } });
    const config = path.join(root, 'config.json');
    fs.symlinkSync('servers/docs.json', config);
    expect(codeOf(() => writeFileAtomicSync(config, '{"gates":{}}\n'))).toBe('PATH_IS_LINK');
    expect(fs.readFileSync(path.join(root, 'servers/docs.json'), 'utf8')).toBe('{"name":"docs"}\n');
    expect(fs.lstatSync(config).isSymbolicLink()).toBe(true);
    expect(others(root, 'servers', 'config.json')).toEqual([]);
  });

  it('37 F1 refuses a link to nothing and a FIFO or a folder in the file’s place', () => {
    const root = testdir({ 'config.json': {} });
    fs.symlinkSync('missing.json', path.join(root, 'dangling.json'));
    execFileSync('mkfifo', [path.join(root, 'pipe.json')]);
    expect(codeOf(() => writeFileAtomicSync(path.join(root, 'dangling.json'), 'x'))).toBe('PATH_IS_LINK');
    expect(codeOf(() => writeFileAtomicSync(path.join(root, 'pipe.json'), 'x'))).toBe('NOT_A_FILE');
    expect(codeOf(() => writeFileAtomicSync(path.join(root, 'config.json'), 'x'))).toBe('NOT_A_FILE');
    expect(fs.existsSync(path.join(root, 'missing.json'))).toBe(false);
  });

  it('followLink replaces the file the owner’s link leads to, and keeps the link and the mode', () => {
    const root = testdir({ dotfiles: { 'claude.json': '{}\n' } });
    const real = path.join(root, 'dotfiles', 'claude.json');
    fs.chmodSync(real, 0o640);
    const link = path.join(root, '.claude.json');
    fs.symlinkSync('dotfiles/claude.json', link);
    expect(writeFileAtomicSync(link, '{"mcpServers":{}}\n', { followLink: true, mode: 0o600 })).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe('{"mcpServers":{}}\n');
    expect(fs.statSync(real).mode & 0o777).toBe(0o640);
    fs.rmSync(link);
    fs.symlinkSync('.claude.json', link);
    expect(codeOf(() => writeFileAtomicSync(link, 'x', { followLink: true }))).toBe('LINK_LOOP');
  });

  it('a new file takes the mode asked for, whatever the umask', () => {
    const root = testdir({});
    writeFileAtomicSync(path.join(root, 'deep', 'token'), 'secret', { mode: 0o600 });
    expect(fs.statSync(path.join(root, 'deep', 'token')).mode & 0o777).toBe(0o600);
  });

  it('37 M4 stillCurrent is asked once the new bytes are beside the file: false leaves the file and no temporary file', () => {
    const root = testdir({ 'config.toml': 'model = "a"\n' });
    const file = path.join(root, 'config.toml');
    let asked: string[] = [];
    const changedMeanwhile = writeFileAtomicSync(file, 'mine = 1\n', {
      stillCurrent: (target) => {
        asked = others(root);
        // Another program writes the file while Loadout's new text waits beside it.
        fs.appendFileSync(target, '[mcp_servers.user]\n');
        return fs.readFileSync(target, 'utf8') === 'model = "a"\n';
      },
    });
    expect(changedMeanwhile).toBe(false);
    expect(asked).toEqual(['config.toml', expect.stringMatching(/^config\.toml\.\d+-[0-9a-f]{8}\.tmp$/)]);
    expect(fs.readFileSync(file, 'utf8')).toBe('model = "a"\n[mcp_servers.user]\n');
    expect(others(root, 'config.toml')).toEqual([]);
    expect(writeFileAtomicSync(file, 'mine = 1\n', { stillCurrent: () => true })).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine = 1\n');
  });

  it('37 M4 a write that lands on the file after the check said current is put back, and the write answers false', () => {
    const root = testdir({ 'config.toml': 'model = "a"\n' });
    const file = path.join(root, 'config.toml');
    const landedAfterTheCheck = writeFileAtomicSync(file, 'mine = 1\n', {
      stillCurrent: (target) => {
        const current = fs.readFileSync(target, 'utf8') === 'model = "a"\n';
        // Another program appends the moment after the check read the file, before the rename.
        fs.appendFileSync(target, '[mcp_servers.user]\n');
        return current;
      },
    });
    expect(landedAfterTheCheck).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('model = "a"\n[mcp_servers.user]\n');
    expect(others(root, 'config.toml')).toEqual([]);
  });
});
