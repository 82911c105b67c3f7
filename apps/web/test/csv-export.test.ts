// @module-tag unit

import type { StorageRunsPage } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "../src/lib/csv";
import { csvExportStream, type PageRead } from "../src/lib/csv-export";
import { run } from "./runs";

/** Page `n` of a listing of `pages` pages, two runs each. */
const page = (n: number, pages: number): StorageRunsPage => ({
  items: [run({ id: `run_01JABCDEFGHJKMNPQRSTVWX${n}0` }), run({ id: `run_01JABCDEFGHJKMNPQRSTVWX${n}1` })],
  nextCursor: n < pages ? String(n + 1) : null,
  appliedFilters: {},
});

/** An upstream of `pages` pages that records each page asked of it. */
function upstream(pages: number, fail?: number) {
  const asked: string[] = [];
  const readPage = async (cursor: string): Promise<PageRead> => {
    asked.push(cursor);
    const n = Number(cursor);
    return n === fail ? { ok: false, message: "oah-api answered 503" } : { ok: true, page: page(n, pages) };
  };
  return { asked, stream: csvExportStream(page(1, pages), readPage) };
}

/** Time for anything eager to run: several turns of the event loop. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 30));
const decoder = new TextDecoder();
const text = (chunk: ReadableStreamReadResult<Uint8Array>) =>
  chunk.done ? null : decoder.decode(chunk.value);

describe("the CSV export's stream", () => {
  it("asks the API for a page only when the consumer has taken the one before", async () => {
    const { asked, stream } = upstream(3);
    await idle();
    expect(asked).toEqual([]);
    const reader = stream.getReader();

    const first = text(await reader.read())!;
    expect(first.startsWith(`${CSV_COLUMNS.join(",")}\r\n`)).toBe(true);
    expect(first.match(/run_01JABCDEFGHJKMNPQRSTVWX1[01]/g)).toHaveLength(2);
    await idle();
    // Page 2 is not read before the consumer asks for more.
    expect(asked).toEqual([]);

    expect(text(await reader.read())).toMatch(
      /^run_01JABCDEFGHJKMNPQRSTVWX20,.*\r\nrun_01JABCDEFGHJKMNPQRSTVWX21,/s,
    );
    await idle();
    expect(asked).toEqual(["2"]);

    expect(text(await reader.read())).toMatch(/^run_01JABCDEFGHJKMNPQRSTVWX30,/);
    expect(asked).toEqual(["2", "3"]);
    expect((await reader.read()).done).toBe(true);
    expect(asked).toEqual(["2", "3"]);
  });

  it("ends at once for one page, errors on a page it cannot read, and reads nothing more once cancelled", async () => {
    const single = upstream(1);
    const reader = single.stream.getReader();
    expect(text(await reader.read())).toContain("run_01JABCDEFGHJKMNPQRSTVWX10");
    expect((await reader.read()).done).toBe(true);
    expect(single.asked).toEqual([]);

    const broken = upstream(3, 2).stream.getReader();
    await broken.read();
    await expect(broken.read()).rejects.toThrow("oah-api answered 503");

    const left = upstream(5);
    const leaving = left.stream.getReader();
    await leaving.read();
    await leaving.cancel();
    await idle();
    expect(left.asked).toEqual([]);
  });
});
