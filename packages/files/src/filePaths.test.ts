import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathAndRealPath } from './filePaths.js';

describe('pathAndRealPath', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loadout-file-paths-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names a folder reached through no link once', () => {
    const folder = path.join(dir, 'plugin');
    fs.mkdirSync(folder);
    expect(pathAndRealPath(folder)).toEqual([folder]);
  });

  it('names a folder reached through a link by both spellings, the one given first', () => {
    const folder = path.join(dir, 'plugin');
    fs.mkdirSync(folder);
    const link = path.join(dir, 'linked');
    fs.symlinkSync(folder, link);
    expect(pathAndRealPath(link)).toEqual([link, folder]);
  });

  it('names a folder that is not there as given', () => {
    const missing = path.join(dir, 'gone');
    expect(pathAndRealPath(missing)).toEqual([missing]);
  });
});
