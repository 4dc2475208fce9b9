import fs from 'node:fs';
import { compareAllWithSchema, compareWithSchema, withField } from '@loadout/kernel/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { notificationCatalogueSchema, notificationCatalogueShape, plainNotificationCatalogue } from './NotificationCatalogue.js';

const schema = notificationCatalogueSchema();
const compare = (value: unknown) => compareWithSchema(plainNotificationCatalogue, schema, value);

const item = { id: 'task.run.failed', title: 'Task run failed', severity: 'error' };
const catalogue = { name: 'runs', description: 'What runs say', notifications: [item], gates: { requires: ['x'] } };

/** Each field with values around every rule the schema has; undefined leaves the field out. */
const catalogueVariants: Record<string, readonly unknown[]> = {
  name: ['runs', '', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(100), '😀'.repeat(101), '😀'.repeat(150), 'é', 1, null, [], undefined],
  description: [undefined, '', 'x'.repeat(1024), 'x'.repeat(1025), '😀'.repeat(600), null, 0, {}],
  notifications: [
    [],
    [item, item],
    Array.from({ length: 1000 }, () => item),
    Array.from({ length: 1001 }, () => item),
    {},
    'x',
    null,
    undefined,
  ],
  gates: [undefined, null, 0, 'x', [], { requires: [] }, { anything: { deep: [1, 2] } }],
  extra: [undefined, 'dropped', { nested: true }],
};

/** Each field of one notification, the same way. */
const itemVariants: Record<string, readonly unknown[]> = {
  id: [
    'a',
    '0',
    'task.run-x_y',
    '',
    '.a',
    '-a',
    'A',
    'aB',
    'a.B',
    'ab-C',
    'a_b.c-d',
    'a b',
    'a/b',
    'x'.repeat(128),
    'x'.repeat(129),
    'é',
    'a\n',
    1,
    null,
    undefined,
  ],
  title: ['T', '', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(100), '😀'.repeat(101), 1, null, undefined],
  severity: ['info', 'success', 'warning', 'error', 'INFO', 'Info', 'debug', 'loud', '', 1, null, undefined],
  extra: [undefined, 'dropped'],
};

describe('plainNotificationCatalogue, the catalogue check without the schema', () => {
  it('accepts the shipped catalogue as the schema builds it', () => {
    const shipped: unknown = JSON.parse(
      fs.readFileSync(new URL('../../../capabilities/notifications/loadout-runs.json', import.meta.url), 'utf8'),
    );
    expect(compare(shipped)).toEqual({ plain: true, schema: true });
  });

  it('agrees with the schema on every field around each rule, and leaves to it only what it must', () => {
    const cases: unknown[] = [catalogue, null, [], 'x', 1];
    for (const [field, values] of Object.entries(catalogueVariants))
      for (const value of values) cases.push(withField(catalogue, field, value));
    for (const [field, values] of Object.entries(itemVariants)) {
      for (const value of values) cases.push({ ...catalogue, notifications: [item, withField(item, field, value)] });
    }
    const { accepted, refused, leftToSchema } = compareAllWithSchema(plainNotificationCatalogue, schema, cases);
    // What the schema accepts the hand check accepts too, but for a length of astral characters over the bound in UTF-16 units.
    for (const value of leftToSchema) expect(JSON.stringify(value)).toContain('😀');
    expect(accepted).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(30);
  });

  it('agrees with the schema on generated catalogues, most of them valid', () => {
    // Mostly what a catalogue holds, now and then a bound, a near miss or another JSON value.
    const anything = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 2 }),
    );
    const mostly = <T>(valid: fc.Arbitrary<T>, edges: readonly unknown[]) =>
      fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: fc.constantFrom(...edges), weight: 1 }, { arbitrary: anything, weight: 1 });
    const words = fc.string({ minLength: 1, maxLength: 12 });
    const notification = fc.record(
      {
        id: mostly(fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/), ['', 'A', 'aB', 'a.B', '-a', 'a b', 'x'.repeat(128), 'x'.repeat(129)]),
        title: mostly(words, ['', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(100), '😀'.repeat(101)]),
        severity: mostly(fc.constantFrom('info', 'success', 'warning', 'error'), ['INFO', 'debug', '']),
        other: anything,
      },
      { requiredKeys: ['id', 'title', 'severity'] },
    );
    const generated = fc.record(
      {
        name: mostly(words, ['', 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(101)]),
        description: mostly(fc.string({ maxLength: 20 }), ['x'.repeat(1024), 'x'.repeat(1025)]),
        notifications: mostly(fc.array(notification, { maxLength: 4 }), [{}, 'x']),
        gates: anything,
        other: anything,
      },
      { requiredKeys: ['name', 'notifications'] },
    );
    let accepted = 0;
    let withNotifications = 0;
    fc.assert(
      fc.property(generated, (value) => {
        if (!compare(value).plain) return;
        accepted += 1;
        if ((value.notifications as unknown[]).length > 0) withNotifications += 1;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(600);
    expect(withNotifications).toBeGreaterThan(300);
  });

  it('gives the schema’s own error for a catalogue it cannot pass', () => {
    expect(notificationCatalogueShape({ name: 'runs', notifications: [{ id: 'x', title: 'X', severity: 'loud' }] })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^✖ .+ → at notifications\[0\]\.severity$/),
    });
    expect(notificationCatalogueShape(catalogue)).toEqual({ ok: true, value: schema.parse(catalogue) });
  });

  it('refuses, not throws, a value zod’s own length check throws on', () => {
    expect(notificationCatalogueShape({ name: { length: { toString: 0 } }, notifications: [] })).toEqual({
      ok: false,
      reason: expect.stringMatching(/^✖ not the expected shape \(/),
    });
  });
});
