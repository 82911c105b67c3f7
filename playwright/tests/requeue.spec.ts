import { expect, expectTableMatchesApi, row, test } from "../fixtures";

test.describe("requeue", () => {
  test("single: a quarantined run leaves the quarantined view and completes", async ({
    page,
    api,
    oah,
    state,
  }) => {
    const runId = state.runs.killerA;
    expect(await oah.get(runId)).toMatchObject({ status: "failed", recoveryState: "quarantined" });

    await page.goto("/storage?recoveryState=quarantined");
    await expectTableMatchesApi(page, api, { recoveryState: "quarantined" });
    const target = row(page, runId);
    await expect(target.getByText("max_attempts_exhausted")).toBeVisible();
    // Runs that are not eligible have no Requeue button; quarantined ones do.
    await target.getByRole("button", { name: "Requeue" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Requeued ${runId}` })).toBeVisible();
    await expect(target).toHaveCount(0);
    await expectTableMatchesApi(page, api, { recoveryState: "quarantined" });

    // Its fourth execution leaves the sandbox alive: the run completes. Who asked is the
    // console's token, and nobody else is claimed.
    const done = await oah.wait(runId, { timeoutMs: 45_000 });
    const { actor } = (await api.get<{ actor: { name: string } }>("/api/v1/auth/whoami")).body;
    expect(done).toMatchObject({
      status: "completed",
      output: "survived",
      attempt: 4,
      metadata: { recovery: { strategy: "manual", manualRequeueCount: 1, lastManualRequeueBy: actor.name } },
    });
    expect(done.metadata.recovery).not.toHaveProperty("lastManualRequeueClaimedBy");

    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(page.getByRole("region", { name: "Recovery" })).toContainText("manual requeues");
    await expect(page.getByRole("region", { name: "Recovery" })).toContainText(`by ${actor.name}`);
  });

  test("bulk: per-item results show the successes and the API's error codes", async ({
    page,
    oah,
    state,
  }) => {
    const eligible = state.runs.killerB;
    const completed = state.runs.completed[0]!;
    const plainFailed = state.runs.plainFailed;

    await page.goto("/storage?limit=200");
    for (const id of [eligible, completed, plainFailed]) {
      await page.getByRole("checkbox", { name: `Select run ${id}` }).check();
    }
    await expect(page.getByText("3 selected")).toBeVisible();
    await page.getByRole("button", { name: "Requeue selected" }).click();

    const dialog = page.getByRole("dialog", { name: "Requeue 3 runs?" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("1 of them look eligible");
    // Going back does nothing.
    await dialog.getByRole("button", { name: "Go back" }).click();
    await expect(dialog).toBeHidden();
    expect((await oah.get(eligible)).status).toBe("failed");

    await page.getByRole("button", { name: "Requeue selected" }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Requeue 3" }).click();
    await expect(dialog).toBeHidden();

    const results = page.getByRole("region", { name: "Requeue results" });
    await expect(results).toContainText("1 requeued, 2 refused");
    const item = (id: string) => results.locator(`li[data-run-id="${id}"]`);
    await expect(item(eligible)).toHaveAttribute("data-outcome", "requeued");
    await expect(item(eligible)).toContainText("requeued");
    await expect(item(completed)).toHaveAttribute("data-outcome", "run_requeue_invalid_status");
    await expect(item(completed)).toContainText("run_requeue_invalid_status");
    await expect(item(completed)).toContainText("a completed run cannot be requeued");
    await expect(item(plainFailed)).toHaveAttribute("data-outcome", "run_requeue_not_supported");
    await expect(item(plainFailed)).toContainText("run_requeue_not_supported");
    // The selection is cleared once the requeue ran.
    await expect(page.getByText("No run selected")).toBeVisible();

    expect(await oah.wait(eligible, { timeoutMs: 45_000 })).toMatchObject({
      status: "completed",
      output: "survived",
    });
    expect((await oah.get(completed)).status).toBe("completed");
    expect((await oah.get(plainFailed)).status).toBe("failed");
  });

  test('"Select all on page" selects and clears the page', async ({ page }) => {
    await page.goto("/storage?status=completed&limit=25");
    await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
    const rows = await page.locator("table.runs-table tbody tr").count();
    const all = page.getByRole("checkbox", { name: "Select all on page" });
    await all.check();
    await expect(page.getByText(`${rows} selected`)).toBeVisible();
    for (const box of await page.getByRole("checkbox", { name: /^Select run / }).all())
      await expect(box).toBeChecked();
    await all.uncheck();
    await expect(page.getByText("No run selected")).toBeVisible();
  });
});
