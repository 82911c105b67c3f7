import {
  apiRunIds,
  chooseFilter,
  expect,
  expectTableMatchesApi,
  openStorage,
  tableRunIds,
  test,
} from "../fixtures";

test.describe("filters", () => {
  test("status: shows exactly the matching runs, and the URL reproduces the view", async ({
    page,
    api,
    context,
  }) => {
    await openStorage(page);
    await chooseFilter(page, "Status", ["failed", "timed_out"]);
    await expect(page).toHaveURL(/\/storage\?status=failed,timed_out$/);

    const expected = await apiRunIds(api, { status: "failed,timed_out" });
    expect(expected.length).toBeGreaterThanOrEqual(5);
    await expectTableMatchesApi(page, api, { status: "failed,timed_out" });
    for (const badge of await page
      .locator("table.runs-table tbody .badge[class*='status-']")
      .allTextContents()) {
      expect(["failed", "timed_out"]).toContain(badge);
    }

    // The same link in a fresh page gives the same view, with the filter shown as set.
    const other = await context.newPage();
    await other.goto(page.url());
    await expect(other.getByRole("button", { name: "Status", exact: true })).toHaveAccessibleDescription(
      "failed, timed_out",
    );
    await expectTableMatchesApi(other, api, { status: "failed,timed_out" });
    expect(await tableRunIds(other)).toEqual(await tableRunIds(page));
  });

  test("error code: shows exactly the matching runs", async ({ page, api, state }) => {
    await openStorage(page);
    await chooseFilter(page, "Error code", ["tool_failed", "worker_recovery_failed"]);
    await expect(page).toHaveURL(/\/storage\?errorCode=worker_recovery_failed,tool_failed$/);
    const expected = await apiRunIds(api, { errorCode: "worker_recovery_failed,tool_failed" });
    expect(expected).toContain(state.runs.plainFailed);
    expect(expected).toContain(state.runs.killerA);
    await expectTableMatchesApi(page, api, { errorCode: "worker_recovery_failed,tool_failed" });

    await page.goto("/storage?errorCode=run_timed_out");
    await expectTableMatchesApi(page, api, { errorCode: "run_timed_out" });
    expect((await tableRunIds(page)).sort()).toEqual([...state.runs.timedOut].sort());
  });

  test("recovery state: shows exactly the matching runs", async ({ page, api, state }) => {
    await openStorage(page);
    await chooseFilter(page, "Recovery state", ["requeued"]);
    await expect(page).toHaveURL(/\/storage\?recoveryState=requeued$/);
    const requeued = await apiRunIds(api, { recoveryState: "requeued" });
    expect(requeued).toContain(state.runs.flaky);
    await expectTableMatchesApi(page, api, { recoveryState: "requeued" });

    await chooseFilter(page, "Recovery state", ["quarantined"]);
    await expect(page).toHaveURL(/\/storage\?recoveryState=requeued,quarantined$/);
    await expectTableMatchesApi(page, api, { recoveryState: "requeued,quarantined" });

    // Filters combine as the API combines them.
    await page.goto("/storage?status=failed&recoveryState=quarantined");
    await expectTableMatchesApi(page, api, { status: "failed", recoveryState: "quarantined" });
    expect(await tableRunIds(page)).toContain(state.runs.killerA);
  });

  test("session and run text filters, and Clear filters", async ({ page, api, state }) => {
    await openStorage(page);
    const session = page.getByLabel("Session", { exact: true });
    await session.fill("checkout-2");
    await session.press("Enter");
    await expect(page).toHaveURL(/\/storage\?sessionId=checkout-2$/);
    await expectTableMatchesApi(page, api, { sessionId: "checkout-2" });
    expect(await tableRunIds(page)).toHaveLength(6);

    await page.goto(`/storage?runId=${state.runs.flaky}`);
    await expect(page.getByLabel("Run", { exact: true })).toHaveValue(state.runs.flaky);
    await expect.poll(() => tableRunIds(page)).toEqual([state.runs.flaky]);

    // A malformed id is pointed out and not sent.
    const run = page.getByLabel("Run", { exact: true });
    await run.fill("run_nope");
    await run.press("Enter");
    await expect(page.getByText("run_ followed by 26 ULID characters")).toBeVisible();

    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/storage$/);
    await expect(run).toHaveValue("");
    await expectTableMatchesApi(page, api, {});
  });

  test("paging: Next and Previous walk the API's keyset pages", async ({ page, api }) => {
    const all = await apiRunIds(api);
    expect(all.length).toBeGreaterThan(25);
    await page.goto("/storage?limit=25");
    await expect.poll(() => tableRunIds(page)).toEqual(all.slice(0, 25));
    await page.getByRole("button", { name: "Next →" }).click();
    await expect.poll(() => tableRunIds(page)).toEqual(all.slice(25, 50));
    await expect(page.getByText("rows 26–")).toBeVisible();
    await page.getByRole("button", { name: "← Previous" }).click();
    await expect.poll(() => tableRunIds(page)).toEqual(all.slice(0, 25));
    await expect(page.getByRole("button", { name: "← Previous" })).toBeDisabled();
  });

  test("the multi-selects work from the keyboard", async ({ page }) => {
    await openStorage(page);
    const button = page.getByRole("button", { name: "Status", exact: true });
    await button.focus();
    await page.keyboard.press("Enter");
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("checkbox", { name: "queued", exact: true })).toBeFocused();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    await expect(page).toHaveURL(/status=running$/);
    await page.keyboard.press("Escape");
    await expect(button).toBeFocused();
    await expect(button).toHaveAttribute("aria-expanded", "false");
  });
});
