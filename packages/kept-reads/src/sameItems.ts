/** Whether two lists hold the same items, by identity, in the same order. */
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The places where two lists of the same length hold different items (by identity), in order; null
 * when their lengths differ or more than `most` places differ. What a list derived from a session's
 * records needs to patch after a few records were replaced in place.
 */
export function changedPlaces<T>(before: readonly T[], after: readonly T[], most: number): number[] | null {
  if (before.length !== after.length) return null;
  const changed: number[] = [];
  for (let i = 0; i < after.length; i += 1) {
    if (before[i] === after[i]) continue;
    if (changed.push(i) > most) return null;
  }
  return changed;
}
