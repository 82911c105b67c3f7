import type { BulkJob, DeadLetters } from "@oah/contract";
import { expect, test } from "../fixtures";

test.describe("dead letters", () => {
  test("groups the quarantined runs by reason and requeues a group through a bulk action's dry run and job", async ({
    page,
    api,
    oah,
    state,
  }) => {
    const [first, second] = state.runs.deadLetters;
    await page.goto("/dead-letters");
    const groups = page.getByRole("table", { name: "Dead-letter groups" });
    const group = groups.locator('tr[data-workspace="nightly-import"]');
    await expect(group).toHaveAttribute("data-reason", "max_attempts_exhausted");
    await expect(group.getByTestId("group-count")).toHaveText("2");
    await expect(group).toContainText("worker_recovery_failed");
    // A command that must not run twice, in flight when its host died, is a group of its own reason.
    await expect(groups.locator('tr[data-workspace="payments"]')).toHaveAttribute(
      "data-reason",
      "step_interrupted",
    );
    // A held wait whose host died is no dead letter: recovery put it back into its wait.
    await expect(groups.locator('tr[data-workspace="approvals"]')).toHaveCount(0);
    // What the page shows is what the API answers.
    const listed = (await api.get<DeadLetters>("/api/v1/storage/dead-letters")).body.groups;
    await expect(groups.locator("tbody tr")).toHaveCount(listed.length);

    // The drill-down lists the group's runs.
    await group.getByRole("link", { name: "Runs" }).click();
    await expect(page).toHaveURL(/recoveryReason=max_attempts_exhausted&workspaceId=nightly-import/);
    await expect(page.locator("table.runs-table tbody tr")).toHaveCount(2);
    for (const id of [first!, second!])
      await expect(page.locator(`table.runs-table tr[data-run-id="${id}"]`)).toBeVisible();

    await page.goto("/dead-letters");
    await group.getByRole("button", { name: "Requeue this group…" }).click();
    const dialog = page.getByRole("dialog", { name: "Requeue all 2 matching" });
    await expect(dialog.getByTestId("dry-run-summary")).toContainText("2 runs match; 2 would be requeued");
    await expect(dialog.getByTestId("outcome-requeued")).toHaveText("2");
    // A dry run changed nothing.
    expect((await oah.get(first!)).recoveryState).toBe("quarantined");
    await dialog.getByRole("button", { name: "Requeue 2 runs" }).click();

    await expect(page).toHaveURL(/\/bulk-actions\/bulk_/);
    await expect(page.getByTestId("bulk-status")).toHaveText("completed");
    await expect(page.getByTestId("bulk-done")).toHaveText("2 / 2 (100%)");
    await expect(page.getByTestId("outcome-requeued")).toHaveText("2");
    const items = page.getByRole("table", { name: "Runs of the job" });
    for (const id of [first!, second!])
      await expect(items.locator(`tr[data-run-id="${id}"]`)).toHaveAttribute("data-outcome", "requeued");
    const jobId = page.url().split("/").pop()!;
    expect((await api.get<BulkJob>(`/api/v1/bulk-actions/${jobId}`)).body).toMatchObject({
      action: "requeue",
      status: "completed",
      total: 2,
      outcomes: { requeued: 2 },
    });

    // Requeued in their session's order, both succeed now.
    for (const id of [first!, second!])
      expect(await oah.wait(id, { timeoutMs: 45_000 })).toMatchObject({
        status: "completed",
        output: "imported",
      });
    await page.goto("/dead-letters");
    await expect(page.getByRole("table", { name: "Dead-letter groups" })).toBeVisible();
    await expect(page.locator('tr[data-workspace="nightly-import"]')).toHaveCount(0);

    await page.goto("/bulk-actions");
    await expect(page.locator(`tr[data-job-id="${jobId}"]`)).toContainText("completed");

    // The audit log keeps the dry run and the start, under the console's token's name.
    const { actor } = (await api.get<{ actor: { name: string } }>("/api/v1/auth/whoami")).body;
    await page.goto("/audit");
    const log = page.getByRole("table", { name: "Audit log" });
    await expect(
      log.locator(`tr[data-audit-action="bulk.start"][data-actor="${actor.name}"]`).first(),
    ).toContainText(jobId);
    await expect(
      log.locator(`tr[data-audit-action="bulk.dry_run"][data-actor="${actor.name}"]`).first(),
    ).toBeVisible();
  });

  test("cancels every run a Storage filter matches, shown first as a dry run", async ({ page, oah }) => {
    const session = `bulk-cancel-${Date.now()}`;
    const runs = [];
    for (let i = 0; i < 3; i++)
      runs.push((await oah.submit(session, { input: { steps: [{ type: "sleep", ms: 30_000 }] } })).run);
    await oah.wait(runs[0]!.id, { until: ["running"], timeoutMs: 20_000 });

    await page.goto(`/storage?sessionId=${session}`);
    await expect(page.locator("table.runs-table tbody tr")).toHaveCount(3);
    await page.getByRole("button", { name: "Cancel all matching…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel all 3 matching" });
    await expect(dialog.getByTestId("outcome-cancelled")).toHaveText("2");
    await expect(dialog.getByTestId("outcome-cancel_requested")).toHaveText("1");
    await dialog.getByRole("button", { name: "Cancel 3 runs" }).click();

    await expect(page.getByTestId("bulk-status")).toHaveText("completed");
    await expect(page.getByTestId("bulk-done")).toHaveText("3 / 3 (100%)");
    for (const run of runs) expect((await oah.wait(run.id, { timeoutMs: 20_000 })).status).toBe("cancelled");
  });
});
