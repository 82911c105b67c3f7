import type { ListStorageRunsInput, StorageRunsPage } from "@oah/contract";
import { type RunReads, storageQueryOf } from "@oah/store";
import { decodeCursor, encodeCursor, normalizeFilters } from "./storage-cursor";

/** The storage admin's runs list (docs/spec.md §9): filtered, newest first, keyset-paged. */
export async function listStorageRuns(
  store: Pick<RunReads, "listRuns">,
  input: ListStorageRunsInput,
): Promise<StorageRunsPage> {
  const { limit, cursor, ...filters } = input;
  const appliedFilters = normalizeFilters(filters);
  const after = cursor ? decodeCursor(cursor, appliedFilters) : undefined;
  const rows = await store.listRuns({ ...storageQueryOf(appliedFilters), after, limit: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({ createdAt: Date.parse(last.createdAt), id: last.id }, appliedFilters)
      : null;
  return { items, nextCursor, appliedFilters };
}
