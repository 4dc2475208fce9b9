import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveServerToken, TOKEN_FILE } from './ServerToken.js';

afterEach(removeTestdirs);

describe('resolveServerToken', () => {
  it('creates the token once in the data folder, readable only by the owner', () => {
    const dataDir = path.join(testdir(), 'data');
    const first = resolveServerToken(dataDir, undefined);
    const file = path.join(dataDir, TOKEN_FILE);
    expect(first).toMatchObject({ source: 'file', file });
    expect(first.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveServerToken(dataDir, '').value).toBe(first.value);
    expect(fs.readdirSync(dataDir)).toEqual([TOKEN_FILE]);
  });

  it('uses LOADOUT_TOKEN when set and writes nothing', () => {
    const dataDir = testdir();
    expect(resolveServerToken(dataDir, 'a-long-enough-token-value')).toEqual({ value: 'a-long-enough-token-value', source: 'env' });
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it('refuses a weak LOADOUT_TOKEN', () => {
    expect(() => resolveServerToken(testdir(), 'short')).toThrow(expect.objectContaining({ code: 'TOKEN_TOO_WEAK' }));
    expect(() => resolveServerToken(testdir(), 'has spaces in it, long enough')).toThrow(
      expect.objectContaining({ code: 'TOKEN_TOO_WEAK' }),
    );
  });

  it('tightens a token file others could read, and refuses an empty one', () => {
    const dataDir = testdir({ [TOKEN_FILE]: 'an-existing-token-of-some-length\n' });
    fs.chmodSync(path.join(dataDir, TOKEN_FILE), 0o644);
    expect(resolveServerToken(dataDir, undefined).value).toBe('an-existing-token-of-some-length');
    expect(fs.statSync(path.join(dataDir, TOKEN_FILE)).mode & 0o777).toBe(0o600);

    const broken = testdir({ [TOKEN_FILE]: '' });
    expect(() => resolveServerToken(broken, undefined)).toThrow(expect.objectContaining({ code: 'TOKEN_FILE_INVALID' }));
  });
});
