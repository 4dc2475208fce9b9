/**
 * The deepest nesting of arrays and objects Loadout takes in a JSON value from outside (a run's
 * input, a request body, a task's output handed to the next step). Far beyond what a person or a
 * tool writes, and far below where serialising it would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep. Walks without recursion,
 * so a hostile value cannot exhaust the stack here, and stops at the first level too deep.
 */
export function exceedsJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (child !== null && typeof child === 'object') pending.push({ value: child, depth });
    }
  }
  return false;
}
