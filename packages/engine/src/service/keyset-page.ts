/**
 * A page of a keyset-paged list read `limit` at a time: its items, and the cursor of the next
 * page (the last item's key) when the page is full; a short page is the last.
 */
export function keysetPage<T>(
  items: T[],
  limit: number,
  keyOf: (last: T) => number,
): { items: T[]; nextCursor: string | null } {
  const last = items[items.length - 1];
  return { items, nextCursor: items.length === limit && last !== undefined ? String(keyOf(last)) : null };
}
