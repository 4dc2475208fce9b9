import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigText } from './readConfigText.js';

afterEach(removeTestdirs);

/** The code and message of what `read` throws. */
function refusal(read: () => unknown): { code: string; message: string } {
  try {
    read();
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('nothing was refused');
}

describe('readConfigText: the reader of every runtime configuration file', () => {
  it('37 L3 a FIFO is refused at once by the name given, never waited on', () => {
    const home = testdir({});
    execFileSync('mkfifo', [path.join(home, '.claude.json')]);
    const started = Date.now();
    expect(refusal(() => readConfigText(path.join(home, '.claude.json'), '~/.claude.json'))).toEqual({
      code: 'MCP_CONFIG_UNREADABLE',
      message: '~/.claude.json is a FIFO (named pipe), not a regular file; Loadout leaves it as it is',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('37 L6 bytes that are not UTF-8 are refused by name; a BOM and valid text are read as they are', () => {
    const home = testdir({ 'bom.json': '\uFEFF{}\n' });
    fs.writeFileSync(path.join(home, 'config.toml'), Buffer.from('# caf\xe9\n', 'latin1'));
    expect(refusal(() => readConfigText(path.join(home, 'config.toml'), '~/.codex/config.toml'))).toMatchObject({
      code: 'MCP_CONFIG_NOT_UTF8',
      message: expect.stringMatching(/^~\/\.codex\/config\.toml holds bytes that are not UTF-8 text/),
    });
    expect(readConfigText(path.join(home, 'bom.json'), 'bom.json')).toBe('\uFEFF{}\n');
  });

  it("follows the user's link; a missing file or a link to nothing is no file; a loop is refused", () => {
    const home = testdir({ dotfiles: { 'config.toml': 'model = "a"\n' } });
    fs.mkdirSync(path.join(home, '.codex'));
    fs.symlinkSync(path.join(home, 'dotfiles', 'config.toml'), path.join(home, '.codex', 'config.toml'));
    expect(readConfigText(path.join(home, '.codex', 'config.toml'), 'c')).toBe('model = "a"\n');
    expect(readConfigText(path.join(home, 'absent.json'), 'a')).toBeNull();
    fs.symlinkSync('nowhere.json', path.join(home, 'dangling.json'));
    expect(readConfigText(path.join(home, 'dangling.json'), 'd')).toBeNull();
    fs.symlinkSync('loop.json', path.join(home, 'loop.json'));
    expect(refusal(() => readConfigText(path.join(home, 'loop.json'), '~/loop.json')).message).toMatch(
      /^~\/loop\.json is a link that leads back to itself/,
    );
  });
});
