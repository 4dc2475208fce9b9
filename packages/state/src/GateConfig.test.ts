import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { applyGateChanges, planGateRewrite, readGateConfig, withConfigLock } from './GateConfig.js';

afterEach(() => removeTestdirs());

describe('readGateConfig', () => {
  it('configures nothing when the file is missing', () => {
    const config = readGateConfig(testdir());
    expect(config.exists).toBe(false);
    expect(config.configured('skill', 'pdf', 'ocr')).toBeUndefined();
  });

  it('reads gates by capability key and gate name, case-insensitively, accepting on/off words', () => {
    const dir = testdir({
      'config.json': JSON.stringify({
        theme: 'dark',
        gates: { 'skill/PDF': { OCR: 'off', tables: true }, 'server/github': { write: false } },
      }),
    });
    const config = readGateConfig(dir);
    expect(config.configured('skill', 'pdf', 'ocr')).toBe(false);
    expect(config.configured('skill', 'Pdf', 'tables')).toBe(true);
    expect(config.configured('server', 'GitHub', 'write')).toBe(false);
    expect(config.configured('skill', 'pdf', 'missing')).toBeUndefined();
  });

  it('prefers the lower-case key when a hand edit spelled the same capability twice', () => {
    const dir = testdir({ 'config.json': JSON.stringify({ gates: { 'skill/pdf': { ocr: true }, 'skill/PDF': { ocr: false } } }) });
    expect(readGateConfig(dir).configured('skill', 'pdf', 'ocr')).toBe(true);
  });

  it.each([
    ['not JSON', '{ nope'],
    ['an array', '[]'],
    ['gates not an object', '{"gates": 3}'],
    ['an entry not an object', '{"gates": {"skill/pdf": true}}'],
    ['a value that is not on/off', '{"gates": {"skill/pdf": {"ocr": "maybe"}}}'],
  ])('refuses a file that is %s, naming it', (_what, text) => {
    const dir = testdir({ 'config.json': text });
    expect(() => readGateConfig(dir)).toThrow(
      expect.objectContaining({ code: 'STATE_CONFIG_INVALID', message: expect.stringContaining(path.join(dir, 'config.json')) }),
    );
  });

  it('never follows a config.json link out of its root', () => {
    const outside = testdir({ 'secret.json': '{"gates": {}}' });
    const dir = testdir();
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(dir, 'config.json'));
    expect(() => readGateConfig(dir)).toThrow(expect.objectContaining({ code: 'STATE_CONFIG_INVALID' }));
  });
});

describe('applyGateChanges', () => {
  it('keeps every other key and capability, and the indentation', () => {
    const before = '{\n    "theme": "dark",\n    "gates": {\n        "skill/other": { "x": true }\n    },\n    "z": [1, 2]\n}\n';
    const after = applyGateChanges(before, [{ kind: 'skill', id: 'pdf', gate: 'ocr', value: false }], 'config.json');
    expect(JSON.parse(after)).toEqual({ theme: 'dark', gates: { 'skill/other': { x: true }, 'skill/pdf': { ocr: false } }, z: [1, 2] });
    expect(after).toContain('\n    "theme": "dark"');
    expect(Object.keys(JSON.parse(after))).toEqual(['theme', 'gates', 'z']);
  });

  it("updates a capability under the key it already has and the gate's declared spelling", () => {
    const before = JSON.stringify({ gates: { 'skill/PDF': { OCR: true, tables: true } } });
    const after = JSON.parse(applyGateChanges(before, [{ kind: 'skill', id: 'pdf', gate: 'ocr', value: false }], 'config.json'));
    expect(after).toEqual({ gates: { 'skill/PDF': { tables: true, ocr: false } } });
  });

  it('starts a file that does not exist yet', () => {
    const text = applyGateChanges(null, [{ kind: 'affordance', id: 'Shell', gate: 'run', value: true }], 'config.json');
    expect(text).toBe('{\n  "gates": {\n    "affordance/shell": {\n      "run": true\n    }\n  }\n}\n');
  });

  it('refuses to rewrite a file it cannot read as data', () => {
    expect(() => applyGateChanges('{"gates": []}', [{ kind: 'skill', id: 'a', gate: 'g', value: true }], 'config.json')).toThrow(
      expect.objectContaining({ code: 'STATE_CONFIG_INVALID' }),
    );
  });
});

describe('withConfigLock', () => {
  it('lets one writer at a time read, change and write the file: no update is lost', async () => {
    const dir = testdir({ 'config.json': '{}' });
    const file = path.join(dir, 'config.json');
    const writers = Array.from({ length: 8 }, (_, n) =>
      withConfigLock(file, () => {
        const rewrite = planGateRewrite(dir, [{ kind: 'skill', id: 'pdf', gate: `g${n}`, value: n % 2 === 0 }]);
        fs.writeFileSync(rewrite.file, rewrite.text);
      }),
    );
    await Promise.all(writers);
    const gates = (JSON.parse(fs.readFileSync(file, 'utf8')) as { gates: Record<string, Record<string, boolean>> }).gates['skill/pdf'];
    expect(Object.keys(gates ?? {}).sort()).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7']);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('releases the lock when the work throws', async () => {
    const dir = testdir();
    const file = path.join(dir, 'config.json');
    await expect(
      withConfigLock(file, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    await expect(withConfigLock(file, () => 'again')).resolves.toBe('again');
  });
});
