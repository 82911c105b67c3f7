import { readFileSync } from "node:fs";
import { apiRunIds, expect, test } from "../fixtures";

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let field = "";
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n") {
      row.push(field.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  return rows;
}

test.describe("export", () => {
  test("Export CSV downloads every page of the current filters", async ({ page, api }) => {
    await page.goto("/storage?status=completed,failed&limit=25");
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export CSV" }).click();
    const file = await (await download).path();
    const [header, ...rows] = parseCsv(readFileSync(file, "utf8"));
    expect(header).toContain("recoveryState");
    const ids = rows.map((r) => r[header!.indexOf("id")]);
    const expected = await apiRunIds(api, { status: "completed,failed" });
    expect(expected.length).toBeGreaterThan(25);
    expect(ids).toEqual(expected);
    const statuses = new Set(rows.map((r) => r[header!.indexOf("status")]));
    expect([...statuses].sort()).toEqual(["completed", "failed"]);
  });

  test("the export pages through the API (small pages)", async ({ page, api, state }) => {
    const res = await page.request.get("/api/storage/runs.csv?recoveryState=quarantined,requeued&pageSize=1");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-disposition"]).toMatch(/attachment; filename="oah-runs-.*\.csv"/);
    const [header, ...rows] = parseCsv(await res.text());
    const ids = rows.map((r) => r[header!.indexOf("id")]);
    expect(ids).toEqual(await apiRunIds(api, { recoveryState: "requeued,quarantined" }));
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(ids).toContain(state.runs.flaky);
  });
});
