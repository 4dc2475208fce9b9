import { describe, expect, it } from 'vitest';
import { type InputCheck, TaskInputSchemas } from './TaskInputSchemas.js';

function check(schema: Record<string, unknown>): InputCheck {
  const prepared = new TaskInputSchemas().prepare(schema);
  if ('error' in prepared) throw new Error(prepared.error);
  return prepared;
}

describe('TaskInputSchemas', () => {
  const schema = { type: 'object', properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 1 } }, required: ['text'], additionalProperties: false };

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
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } };
    const before = JSON.stringify(draft7);
    expect(check(draft7)({ n: 0 })).toMatch(/n:/);
    expect(check(draft7)({ n: 1 })).toBeNull();
    expect(JSON.stringify(draft7)).toBe(before);
  });

  it('reports a schema it cannot use instead of accepting anything', () => {
    const prepared = new TaskInputSchemas().prepare({ type: 'object', $ref: '#/$defs/missing' });
    expect(prepared).toEqual({ error: expect.stringContaining('cannot be used') });
  });
});
