import { INVALID_PARAMS, JsonRpcError } from './McpErrors.js';

/**
 * One page of a list: `cursor` is the offset a previous page handed out (as a string, opaque to
 * the client). A cursor that is not one is refused, never read as the start.
 */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  size: number,
): { items: readonly T[]; next: { nextCursor?: string } } {
  let offset = 0;
  if (cursor !== undefined) {
    offset = /^[0-9]{1,9}$/.test(cursor) ? Number(cursor) : -1;
    if (offset < 0 || offset > items.length)
      throw new JsonRpcError(
        INVALID_PARAMS,
        `the cursor "${cursor.slice(0, 40)}" is not one this server handed out (the list may have changed)`,
      );
  }
  const end = Math.min(items.length, offset + size);
  return { items: items.slice(offset, end), next: end < items.length ? { nextCursor: String(end) } : {} };
}
