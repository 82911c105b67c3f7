import type { StorageRunsPage } from "@oah/contract";
import { CSV_COLUMNS, csvRow } from "./csv";

/** The next page of a listing, or why it could not be read. */
export type PageRead = { ok: true; page: StorageRunsPage } | { ok: false; message: string };

/**
 * A listing as CSV (the header, then each page's rows), read from the API as the consumer reads
 * the stream: a page is asked for only when the one before has been taken (`pull`, no chunk
 * queued ahead), so that a slow download holds one page in the console, not the whole export.
 * A page that cannot be read errors the stream; a consumer that goes away stops the reading.
 */
export function csvExportStream(
  first: StorageRunsPage,
  readPage: (cursor: string, signal: AbortSignal) => Promise<PageRead>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  let header = true;
  let cursor = first.nextCursor;
  const rowsOf = (page: StorageRunsPage) => page.items.map(csvRow).join("");
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (header) {
          header = false;
          controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n${rowsOf(first)}`));
        } else if (cursor !== null) {
          const next = await readPage(cursor, gone.signal);
          if (!next.ok) {
            controller.error(new Error(next.message));
            return;
          }
          cursor = next.page.nextCursor;
          controller.enqueue(encoder.encode(rowsOf(next.page)));
        }
        if (cursor === null) controller.close();
      },
      cancel() {
        gone.abort();
      },
    },
    // Nothing read ahead: each page waits for the consumer to ask.
    new CountQueuingStrategy({ highWaterMark: 0 }),
  );
}
