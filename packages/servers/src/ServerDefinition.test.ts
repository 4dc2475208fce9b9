import fs from 'node:fs';
import { compareAllWithSchema, compareWithSchema, withField } from '@loadout/kernel/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainServerDefinition, type ServerDefinitionFile, serverDefinitionSchema, serverDefinitionShape } from './ServerDefinition.js';

const schema = serverDefinitionSchema();
const compare = (value: unknown) => compareWithSchema<ServerDefinitionFile>(plainServerDefinition, schema, value);

const definition = {
  name: 'files',
  description: 'Files of the project',
  command: 'npx',
  args: ['-y', 'server', '.'],
  env: { TOKEN: 'x', HOME: '/h' },
  cwd: 'sub',
  gates: { requires: ['x'] },
};

/** Each field with values around every rule the schema has; undefined leaves the field out. */
const variants: Record<string, readonly unknown[]> = {
  name: ['files', '', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(100), '😀'.repeat(101), 1, null, undefined],
  description: [undefined, '', 'x'.repeat(1024), 'x'.repeat(1025), '😀'.repeat(600), null, 0],
  command: ['npx', '', 'x'.repeat(4096), 'x'.repeat(4097), '😀'.repeat(2048), '😀'.repeat(2049), 1, null, ['npx'], undefined],
  args: [
    undefined,
    [],
    ['', 'x'.repeat(4096)],
    ['x'.repeat(4097)],
    ['😀'.repeat(2049)],
    Array.from({ length: 256 }, () => 'a'),
    Array.from({ length: 257 }, () => 'a'),
    [1],
    'a',
    null,
    {},
  ],
  env: [
    undefined,
    {},
    { A: '' },
    { A: 'x'.repeat(8192) },
    { A: 'x'.repeat(8193) },
    { A: '😀'.repeat(4097) },
    { A: 1 },
    { A: null },
    { '': 'x' },
    JSON.parse('{"__proto__":"x"}'),
    [],
    'A=1',
    null,
  ],
  cwd: [undefined, 'sub', '', 'x'.repeat(4096), 'x'.repeat(4097), 1, null],
  gates: [undefined, null, 'x', { requires: [] }, [1]],
  url: [undefined, 'https://example.com/mcp', 'ftp://example.com', 'not a url', 1],
  headers: [undefined, { Authorization: 'Bearer x' }],
  type: [undefined, 'sse', 'stdio'],
  tools: [undefined, { allow: ['read_file'] }, { deny: ['write_*'] }, { allow: ['bad name'] }, { block: [] }, []],
  extra: [undefined, 'dropped'],
};

const remote = { name: 'remote', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, type: 'http' };

describe('plainServerDefinition, the command server check without the schema', () => {
  it('accepts the shipped server as the schema builds it', () => {
    const shipped: unknown = JSON.parse(fs.readFileSync(new URL('../../../capabilities/servers/filesystem.json', import.meta.url), 'utf8'));
    expect(compare(shipped)).toEqual({ plain: true, schema: true });
  });

  it('agrees with the schema on every field around each rule, and leaves to it only remote servers and what it must', () => {
    const minimal = { name: 'files', command: 'npx' };
    const cases: unknown[] = [definition, minimal, remote, null, [], 'x'];
    for (const base of [definition, minimal, remote])
      for (const [field, values] of Object.entries(variants)) for (const value of values) cases.push(withField(base, field, value));
    const { accepted, refused, leftToSchema } = compareAllWithSchema<ServerDefinitionFile>(plainServerDefinition, schema, cases);
    // Left to the schema: a remote server, a tool list, a length of astral characters over the bound in UTF-16 units, a `__proto__` variable.
    for (const value of leftToSchema) {
      const text = JSON.stringify(value);
      expect('url' in (value as object) || 'tools' in (value as object) || text.includes('😀') || text.includes('"__proto__"'), text).toBe(
        true,
      );
    }
    expect(accepted).toBeGreaterThan(40);
    expect(refused).toBeGreaterThan(40);
  });

  it('agrees with the schema on generated definitions, most of them valid', () => {
    // Mostly what a definition holds, now and then a bound, a near miss or another JSON value.
    const anything = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    );
    const mostly = <T>(valid: fc.Arbitrary<T>, edges: readonly unknown[]) =>
      fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: fc.constantFrom(...edges), weight: 1 }, { arbitrary: anything, weight: 1 });
    const words = fc.string({ minLength: 1, maxLength: 12 });
    const generated = fc.record(
      {
        name: mostly(words, ['', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(101)]),
        description: mostly(fc.string({ maxLength: 20 }), ['x'.repeat(1024), 'x'.repeat(1025)]),
        command: mostly(words, ['', 'x'.repeat(4096), 'x'.repeat(4097), '😀'.repeat(2049)]),
        args: mostly(fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }), [
          ['x'.repeat(4097)],
          Array.from({ length: 257 }, () => 'a'),
          [1],
        ]),
        env: mostly(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }), [
          { A: 'x'.repeat(8193) },
          { A: 1 },
          JSON.parse('{"__proto__":"x"}'),
        ]),
        cwd: mostly(words, ['', 'x'.repeat(4097)]),
        gates: anything,
        url: fc.constantFrom('https://example.com/mcp', 'not a url'),
        other: anything,
      },
      { requiredKeys: ['name', 'command'] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(generated, (value) => {
        if (compare(value).plain) accepted += 1;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(600);
  });

  it('reads tool allow and deny lists by the schema: names checked, nothing else in them', () => {
    const listed = { name: 'files', command: 'npx', tools: { allow: ['read_file', 'list_*'], deny: ['write_file'] } };
    expect(plainServerDefinition(listed)).toBeNull();
    expect(serverDefinitionShape(listed)).toEqual({ ok: true, value: schema.parse(listed) });
    expect(schema.parse({ ...remote, tools: { deny: ['delete'] } })).toMatchObject({ tools: { deny: ['delete'] } });
    for (const tools of [{ allow: ['rm -rf'] }, { allow: 'read_file' }, { only: ['read_file'] }, { allow: [''] }])
      expect(serverDefinitionShape({ ...listed, tools }).ok, JSON.stringify(tools)).toBe(false);
  });

  it('leaves a remote server and a bad definition to the schema, with its own error', () => {
    expect(plainServerDefinition(remote)).toBeNull();
    expect(serverDefinitionShape(remote)).toEqual({ ok: true, value: schema.parse(remote) });
    expect(serverDefinitionShape({ name: 'x', command: 'npx', args: 'a' })).toEqual({ ok: false, reason: expect.stringMatching(/^✖ /) });
    expect(serverDefinitionShape(definition)).toEqual({ ok: true, value: schema.parse(definition) });
    expect(serverDefinitionShape({ name: { length: { toString: 0 } }, command: 'npx' })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^✖ not the expected shape \(/),
    });
  });
});
