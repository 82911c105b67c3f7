import { expect, row, test } from "../fixtures";

test.describe("live data", () => {
  test("the runs table and the counts refresh on their own", async ({ page, oah }) => {
    await page.goto("/storage");
    await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
    const before = Number(
      await page.getByTestId("overview-status-completed").locator(".card-count").getAttribute("data-count"),
    );
    const run = (await oah.submit("live-check", { input: { steps: [{ type: "output", value: "fresh" }] } }))
      .run;
    await oah.wait(run.id, { until: ["completed"] });
    // No reload: the next refetch brings the run and the new count.
    await expect(row(page, run.id)).toBeVisible({ timeout: 10_000 });
    await expect(row(page, run.id)).toContainText("completed");
    await expect(page.getByTestId("overview-status-completed").locator(".card-count")).not.toHaveAttribute(
      "data-count",
      String(before),
    );
  });

  test("a failed refresh shows a banner and keeps the last data", async ({ page }) => {
    await page.goto("/storage");
    const rows = page.locator("table.runs-table tbody tr");
    await expect(rows.first()).toBeVisible();
    const count = await rows.count();

    await page.route("**/api/trpc/admin.runs**", (route) =>
      route.fulfill({
        status: 502,
        contentType: "application/json",
        body: JSON.stringify({
          error: {
            message: "The console cannot reach oah-api (ECONNREFUSED).",
            code: -32603,
            data: { code: "BAD_GATEWAY", httpStatus: 502, errorCode: "api_unreachable" },
          },
        }),
      }),
    );
    const banner = page.getByRole("alert").filter({ hasText: "Refresh failed" });
    await expect(banner).toBeVisible({ timeout: 15_000 });
    await expect(banner).toContainText("cannot reach oah-api");
    await expect(banner).toContainText("Showing data from");
    await expect(rows).toHaveCount(count);
    // Non-blocking: the page still works while the banner shows.
    await page.getByRole("checkbox", { name: "Select all on page" }).check();
    await expect(page.getByText(`${count} selected`)).toBeVisible();

    await page.unroute("**/api/trpc/admin.runs**");
    await expect(banner).toBeHidden({ timeout: 15_000 });
    await expect(rows).toHaveCount(count);
  });

  test("the console says what to do when oah-api cannot be reached at all", async ({ page }) => {
    await page.route("**/api/trpc/**", (route) =>
      route.fulfill({
        status: 502,
        contentType: "application/json",
        body: JSON.stringify({
          error: {
            message: "The console cannot reach oah-api at http://127.0.0.1:1 (ECONNREFUSED).",
            code: -32603,
            data: { code: "BAD_GATEWAY", httpStatus: 502, errorCode: "api_unreachable" },
          },
        }),
      }),
    );
    await page.goto("/storage");
    await expect(page.getByText("Could not load runs.")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText("Check that oah-api is running").first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Retry" }).first()).toBeVisible();
  });
});
