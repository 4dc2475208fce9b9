import { describe, expect, it } from 'vitest';
import { editJsonText } from './editJsonText.js';

describe('editJsonText: the one JSON edit', () => {
  it('sets, adds and removes values, keeping every other byte, the indentation and CRLF', () => {
    const before =
      '{\r\n    "theme": "dark",  \r\n    "gates": {\r\n        "skill/old": { "x": true }\r\n    },\r\n    "z": [1,2]\r\n}\r\n';
    const after = editJsonText(before, [
      { path: ['gates', 'skill/pdf', 'ocr'], value: false },
      { path: ['gates', 'skill/old'], value: undefined },
      { path: ['theme'], value: 'light' },
    ]);
    expect(after).not.toBeNull();
    expect(JSON.parse(after as string)).toEqual({ theme: 'light', gates: { 'skill/pdf': { ocr: false } }, z: [1, 2] });
    expect(after).toContain('    "theme": "light",  \r\n');
    expect(after).toContain('"z": [1,2]\r\n}\r\n');
    expect(after).not.toMatch(/[^\r]\n/);
  });

  it('starts a missing or blank file as an object, laid out with two spaces', () => {
    const made = editJsonText(null, [{ path: ['gates', 'affordance/shell', 'run'], value: true }]);
    expect(made).toBe('{\n  "gates": {\n    "affordance/shell": {\n      "run": true\n    }\n  }\n}\n');
    expect(editJsonText('  \n', [{ path: ['name'], value: 'x' }])).toBe('{\n  "name": "x"\n}\n');
  });

  it('replaces a top-level name literal only, never a nested one', () => {
    const before = '{"env":{"name":"inner"},"name" : "Outer","url":"https://x.example"}';
    expect(editJsonText(before, [{ path: ['name'], value: 'Outer (2)\n' }])).toBe(
      '{"env":{"name":"inner"},"name" : "Outer (2)\\n","url":"https://x.example"}',
    );
  });

  it('is null when the text would read differently than asked: a key written twice', () => {
    expect(editJsonText('{"name":"a","name":"b"}', [{ path: ['name'], value: 'c' }])).toBeNull();
  });

  it("removes an array's element and appends one at its end, the rest of the array as written", () => {
    const before = '{\n  "hooks": {\n    "Stop": [{ "a": 1 }, { "b": 2 }, { "c": 3 }]\n  }\n}\n';
    const removed = editJsonText(before, [{ path: ['hooks', 'Stop', 1], value: undefined }], { reflow: false });
    expect(removed).toBe('{\n  "hooks": {\n    "Stop": [{ "a": 1 }, { "c": 3 }]\n  }\n}\n');
    const appended = editJsonText(removed, [{ path: ['hooks', 'Stop', 2], value: { d: 4 } }], { reflow: false });
    expect(JSON.parse(appended as string)).toEqual({ hooks: { Stop: [{ a: 1 }, { c: 3 }, { d: 4 }] } });
  });

  it('without reflow, adding values and taking them out again gives back the text byte for byte', () => {
    const before = '{\n  "theme": "dark",\n  "hooks": {\n    "Stop": [{ "hooks": [] }]\n  }\n}\n';
    const added = editJsonText(
      before,
      [
        { path: ['hooks', 'SessionStart'], value: [] },
        { path: ['hooks', 'SessionStart', 0], value: { hooks: [{ command: 'x' }] } },
        { path: ['hooks', 'Stop', 1], value: { hooks: [] } },
      ],
      { reflow: false },
    );
    expect(added).toContain('"Stop": [{ "hooks": [] }');
    const back = editJsonText(
      added,
      [
        { path: ['hooks', 'Stop', 1], value: undefined },
        { path: ['hooks', 'SessionStart'], value: undefined },
      ],
      { reflow: false },
    );
    expect(back).toBe(before);
  });

  it('throws on text that is not JSON', () => {
    expect(() => editJsonText('{"a":', [{ path: ['a'], value: 1 }])).toThrow(SyntaxError);
  });
});
