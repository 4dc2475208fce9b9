import fs from 'node:fs';
import path from 'node:path';
import { realpathInside } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pathInside } from './pathInside.js';

afterEach(removeTestdirs);

describe('pathInside follows the kernel’s realpath-inside rule', () => {
  it('a link loop is a loop for the plugins’ reader as for the documents’ reader, never a missing file', () => {
    const root = testdir({ 'plugin.json': '{}', skills: {} });
    fs.symlinkSync('.mcp.json', path.join(root, '.mcp.json'));
    expect(pathInside(root, '.mcp.json')).toEqual({ type: 'loop' });
    expect(() => realpathInside(root, path.join(root, '.mcp.json'))).toThrow(expect.objectContaining({ code: 'LINK_LOOP' }));
    expect(pathInside(root, 'plugin.json')).toEqual({ type: 'file', real: path.join(root, 'plugin.json') });
    expect(pathInside(root, 'skills')).toEqual({ type: 'folder', real: path.join(root, 'skills') });
    expect(pathInside(root, 'nothing.json')).toEqual({ type: 'missing' });
    expect(pathInside(root, '../escape')).toEqual({ type: 'outside' });
  });
});
