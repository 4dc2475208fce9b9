import { describe, expect, it } from 'vitest';
import { type InputCheck, readStructuredOutput, TaskInputSchemas } from './TaskInputSchemas.js';

function check(schema: Record<string, unknown>): InputCheck {
  const prepared = new TaskInputSchemas().prepare(schema);
  if ('error' in prepared) throw new Error(prepared.error);
  return prepared;
}

describe('TaskInputSchemas', () => {
  const schema = {
    type: 'object',
    properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
    required: ['text'],
    additionalProperties: false,
  };

  it('accepts arguments that match', () => {
    expect(check(schema)({ text: 'hi', count: 2 })).toBeNull();
  });

  it('names what is wrong with arguments that do not match', () => {
    const validate = check(schema);
    expect(validate({})).toMatch(/required property "text"/);
    expect(validate({ text: 3 })).toMatch(/text: .*string/);
    expect(validate({ text: 'x', count: 0 })).toMatch(/count: .*1/);
    expect(validate({ text: 'x', extra: true })).toMatch(/extra/);
  });

  it('reads draft-07 schemas as draft-07 and leaves the record’s schema untouched', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 0 } },
    };
    const before = JSON.stringify(draft7);
    expect(check(draft7)({ n: 0 })).toMatch(/n:/);
    expect(check(draft7)({ n: 1 })).toBeNull();
    expect(JSON.stringify(draft7)).toBe(before);
  });

  it('reports a schema it cannot use instead of accepting anything', () => {
    const prepared = new TaskInputSchemas().prepare({ type: 'object', $ref: '#/$defs/missing' });
    expect(prepared).toEqual({ error: expect.stringContaining('cannot be used') });
  });

  it('37 M3 runs a catastrophic pattern in linear time: 32 characters are refused at once, not after seconds', () => {
    const validate = check({ type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } } });
    const started = performance.now();
    expect(validate({ word: `${'a'.repeat(32)}!` })).toMatch(/word: String does not match pattern/);
    expect(validate({ word: `${'a'.repeat(5000)}!` })).toMatch(/does not match pattern/);
    expect(performance.now() - started).toBeLessThan(500);
    expect(validate({ word: 'aaaa' })).toBeNull();
  });

  it('37 M3 keeps pattern semantics: an unanchored search, beside a format, under propertyNames, and a property called "pattern" is a name', () => {
    const validate = check({
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '[0-9]{3}' },
        mail: { type: 'string', format: 'email', pattern: '@example\\.org$' },
        pattern: { type: 'string' },
        tags: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
      },
    });
    expect(validate({ code: 'ab123cd', mail: 'x@example.org', pattern: '(a+)+', tags: { ok: 1 } })).toBeNull();
    expect(validate({ code: 'ab12' })).toMatch(/code: String does not match pattern/);
    expect(validate({ mail: 'x@example.com' })).toMatch(/mail: String does not match pattern/);
    expect(validate({ mail: 'not an address@example.org' })).toMatch(/mail: .*format "email"/);
    expect(validate({ tags: { Bad: 1 } })).not.toBeNull();
  });

  it('37 M3 chooses the same properties for patternProperties, in linear time', () => {
    const validate = check({
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'number' }, '^x-': { type: 'string' }, '^(x|a)': { type: ['number', 'string'] } },
      additionalProperties: false,
    });
    expect(validate({ aaa: 1, 'x-y': 'z' })).toBeNull();
    expect(validate({ aaa: 'not a number' })).toMatch(/aaa/);
    expect(validate({ other: 1 })).toMatch(/other/);
    const started = performance.now();
    expect(validate({ [`${'a'.repeat(40)}!`]: true })).toMatch(/aaaa/);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('37 M3 reports a pattern RE2 cannot run (a backreference, a lookahead) as an unusable schema', () => {
    for (const pattern of ['(a)\\1', '^(?=a)']) {
      expect(new TaskInputSchemas().prepare({ type: 'object', properties: { w: { type: 'string', pattern } } })).toEqual({
        error: expect.stringContaining('cannot run in linear time'),
      });
    }
    expect(new TaskInputSchemas().prepare({ type: 'object', patternProperties: { '(?<=a)b': {} } })).toEqual({
      error: expect.stringContaining('cannot run in linear time'),
    });
  });
});

describe('readStructuredOutput', () => {
  const task = {
    outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
    outputSchemaError: null,
  };
  const schemas = new TaskInputSchemas();

  it('gives the printed JSON object when it matches the declared schema, and nothing for a task that declares none', () => {
    expect(readStructuredOutput(schemas, task, '{"total": 3}\n')).toEqual({ value: { total: 3 } });
    expect(readStructuredOutput(schemas, { outputSchema: null, outputSchemaError: null }, 'plain text')).toBeNull();
  });

  it('says why an output cannot be given as declared: not JSON, not an object, not matching, or an unusable schema', () => {
    expect(readStructuredOutput(schemas, task, 'done')).toEqual({ problem: expect.stringContaining('not JSON') });
    expect(readStructuredOutput(schemas, task, '[1]')).toEqual({ problem: expect.stringContaining('not a JSON object') });
    expect(readStructuredOutput(schemas, task, '{"total": "three"}')).toEqual({
      problem: expect.stringMatching(/^the task's output does not match its output schema: total: /),
    });
    expect(readStructuredOutput(schemas, { outputSchema: null, outputSchemaError: 'bad schema' }, '{}')).toEqual({ problem: 'bad schema' });
  });
});
