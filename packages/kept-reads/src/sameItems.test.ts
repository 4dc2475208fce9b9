import { describe, expect, it } from 'vitest';
import { changedPlaces, sameItems } from './sameItems.js';

describe('sameItems', () => {
  it('compares items by identity and order', () => {
    const a = { id: 'a' };
    const b = { id: 'b' };
    expect(sameItems([a, b], [a, b])).toBe(true);
    expect(sameItems([a, b], [b, a])).toBe(false);
    expect(sameItems([a], [{ id: 'a' }])).toBe(false);
    expect(sameItems([a], [a, b])).toBe(false);
  });
});

describe('changedPlaces', () => {
  const items = Array.from({ length: 6 }, (_, i) => ({ i }));

  it('lists the places holding another object, in order', () => {
    const after = items.slice();
    after[4] = { i: 4 };
    after[1] = { i: 1 };
    expect(changedPlaces(items, after, 32)).toEqual([1, 4]);
    expect(changedPlaces(items, items.slice(), 32)).toEqual([]);
  });

  it('is null for lists of other lengths or more changed places than allowed', () => {
    expect(changedPlaces(items, items.slice(1), 32)).toBeNull();
    const after = items.map((item) => ({ ...item }));
    expect(changedPlaces(items, after, 5)).toBeNull();
    expect(changedPlaces(items, after, 6)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
