import type { StorageOverview } from "@oah/contract";
import { RUN_STATUSES } from "@oah/core";
import type { Page } from "@playwright/test";
import { apiOverview, expect, expectTableMatchesApi, openStorage, test } from "../fixtures";

async function shownCounts(page: Page) {
  const count = async (testId: string) =>
    Number(await page.getByTestId(testId).locator(".card-count").getAttribute("data-count"));
  const statusCounts = Object.fromEntries(
    await Promise.all(RUN_STATUSES.map(async (s) => [s, await count(`overview-status-${s}`)] as const)),
  );
  const reasons = await page.locator(".reasons li").evaluateAll((items) =>
    items.map((li) => ({
      reason: li.querySelector(".mono")?.textContent ?? "",
      count: Number(li.querySelector(".reason-count")?.textContent ?? Number.NaN),
    })),
  );
  return {
    statusCounts,
    recovery: {
      trackedRuns: await count("overview-recovery-tracked"),
      quarantinedRuns: await count("overview-recovery-quarantined"),
      requeuedRuns: await count("overview-recovery-requeued"),
      failedRecoveryRuns: await count("overview-recovery-failed"),
      workerRecoveryFailures: await count("overview-recovery-worker-failures"),
      topQuarantineReasons: reasons,
    },
  };
}

function expected(o: StorageOverview) {
  const { trackedRuns, quarantinedRuns, requeuedRuns, failedRecoveryRuns, workerRecoveryFailures } =
    o.recovery;
  return {
    statusCounts: o.statusCounts,
    recovery: {
      trackedRuns,
      quarantinedRuns,
      requeuedRuns,
      failedRecoveryRuns,
      workerRecoveryFailures,
      topQuarantineReasons: o.recovery.topQuarantineReasons,
    },
  };
}

test.describe("overview", () => {
  test("the counts match the API's overview", async ({ page, api }) => {
    await page.goto("/storage");
    await expect(page.getByTestId("overview-status-completed").locator(".card-count")).not.toHaveText("…");
    await expect
      .poll(async () => {
        const [ui, o] = await Promise.all([shownCounts(page), apiOverview(api)]);
        return JSON.stringify(ui) === JSON.stringify(expected(o)) ? "same" : { ui, api: expected(o) };
      })
      .toBe("same");
    const o = await apiOverview(api);
    expect(o.statusCounts.completed).toBeGreaterThan(10);
    expect(o.recovery.quarantinedRuns).toBeGreaterThanOrEqual(1);
    expect(o.recovery.topQuarantineReasons.length).toBeGreaterThanOrEqual(1);
    // The quarantine times are shown.
    await expect(page.locator(".facts-inline time").first()).toBeVisible();
  });

  test('clicking "quarantined" filters to the quarantined runs', async ({ page, api }) => {
    await openStorage(page);
    const card = page.getByTestId("overview-recovery-quarantined");
    await card.click();
    await expect(page).toHaveURL(/\/storage\?recoveryState=quarantined$/);
    await expect(card).toHaveAttribute("aria-pressed", "true");
    await expectTableMatchesApi(page, api, { recoveryState: "quarantined" });
    const badges = await page.locator("table.runs-table tbody .badge[class*='recovery-']").allTextContents();
    expect(badges.length).toBeGreaterThan(0);
    expect(new Set(badges)).toEqual(new Set(["quarantined"]));
  });

  test("clicking a status card or a quarantine reason applies its filter", async ({ page, api }) => {
    await openStorage(page);
    await page.getByTestId("overview-status-timed_out").click();
    await expect(page).toHaveURL(/\/storage\?status=timed_out$/);
    await expectTableMatchesApi(page, api, { status: "timed_out" });

    await page.getByTestId("overview-recovery-worker-failures").click();
    await expect(page).toHaveURL(/\/storage\?errorCode=worker_recovery_failed$/);
    await expectTableMatchesApi(page, api, { errorCode: "worker_recovery_failed" });

    await page.locator(".reasons li button").first().click();
    await expect(page).toHaveURL(/\/storage\?recoveryState=quarantined$/);
  });
});
