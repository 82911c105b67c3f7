import { expect, test } from "../fixtures";

test.describe("run detail", () => {
  test("Cancel stops a long run", async ({ page, oah }) => {
    const run = (
      await oah.submit("long-export", {
        input: {
          steps: [
            { type: "shell", command: "echo 'exporting'; sleep 120" },
            { type: "output", value: "never" },
          ],
        },
      })
    ).run;
    await oah.wait(run.id, { until: ["running"] });

    await page.goto(`/runs/${run.id}`);
    await expect(page.getByTestId("run-status")).toHaveText("running");
    await expect(page.getByRole("button", { name: "Requeue" })).toHaveCount(0);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel run" }).click();

    await expect(page.getByTestId("run-status")).toHaveText("cancelled", { timeout: 20_000 });
    await expect(page.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
    const ended = await oah.get(run.id);
    expect(ended.status).toBe("cancelled");
    expect(Date.parse(ended.endedAt!) - Date.parse(ended.startedAt!)).toBeLessThan(20_000);
    expect((await oah.listEvents(run.id)).items.map((e) => e.type)).toContain("run.cancelled");
    await expect(page.locator('tr[data-event-type="run.cancelled"]')).toBeVisible();

    // A cancelled run starts again only when the operator confirms it explicitly.
    await expect(page.getByRole("button", { name: "Requeue" })).toHaveCount(0);
    await page.getByRole("button", { name: "Run again…" }).click();
    const again = page.getByRole("dialog", { name: "Run it again anyway?" });
    await expect(again).toContainText("Someone asked to cancel");
    await again.getByRole("button", { name: "Leave it" }).click();
    expect((await oah.get(run.id)).status).toBe("cancelled");
    await page.getByRole("button", { name: "Run again…" }).click();
    await again.getByRole("button", { name: "Run again" }).click();
    await expect(page.getByText("Requeued (was cancelled).")).toBeVisible();
    const restarted = await oah.wait(run.id, { until: ["running"], timeoutMs: 20_000 });
    expect(restarted).toMatchObject({ attempt: 2, cancelRequestedAt: null });
    await oah.cancel(run.id);
    await oah.wait(run.id, { until: ["cancelled"], timeoutMs: 20_000 });
  });

  test("shows timeline, recovery, events, steps and formatted input/output", async ({ page, state }) => {
    await page.goto(`/runs/${state.runs.killerB}`);
    await expect(page.getByTestId("run-status")).toHaveText("failed");
    const recovery = page.getByRole("region", { name: "Recovery" });
    await expect(recovery).toContainText("quarantined");
    await expect(recovery).toContainText("max_attempts_exhausted");
    await expect(recovery).toContainText("requeue_running");
    await expect(recovery).toContainText("dead letter");
    // Quarantined and failed: eligible for a manual requeue.
    await expect(page.getByRole("button", { name: "Requeue" })).toBeVisible();
    const timeline = page.getByRole("list", { name: "Timeline" });
    for (const label of ["created", "started", "heartbeat", "ended"])
      await expect(timeline).toContainText(label);
    const events = page.getByRole("table", { name: "Events" });
    await expect(events.locator("tbody tr").first()).toContainText("run.queued");
    await expect(events).toContainText("run.requeued");
    await expect(events).toContainText("run.failed");
    await expect(page.getByRole("list", { name: "Steps" })).toContainText("shell");

    // A held wait whose host died went back into its wait, and completed once answered.
    await page.goto(`/runs/${state.runs.waiting}`);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(page.getByRole("region", { name: "Recovery" })).toContainText("requeued");
    for (const type of ["run.waiting_tool", "run.requeued", "run.resumed", "run.completed"])
      await expect(page.getByRole("table", { name: "Events" })).toContainText(type);

    await page.goto(`/runs/${state.runs.flaky}`);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(page.getByRole("region", { name: "Output" })).toContainText('"rows": 1284');
    await expect(page.getByRole("region", { name: "Input" })).toContainText('"type": "shell"');
  });

  test("a parked run says it waits without a worker", async ({ page, state, oah }) => {
    await page.goto(`/runs/${state.runs.parked}`);
    await expect(page.getByTestId("run-status")).toHaveText("waiting_tool");
    await expect(page.locator(".run-head .badge.parked")).toHaveText("parked");
    const events = page.getByRole("table", { name: "Events" });
    await expect(events).toContainText("run.waiting_tool");
    expect(await oah.get(state.runs.parked)).toMatchObject({ workerId: null, metadata: { parked: true } });
    await page.goto(`/storage?sessionId=approvals-18`);
    await expect(page.locator(`tr[data-run-id="${state.runs.parked}"] .badge.parked`)).toBeVisible();
  });

  test("an unknown run says so", async ({ page }) => {
    await page.goto("/runs/run_00000000000000000000000000");
    await expect(page.getByRole("alert").filter({ hasText: "run_not_found" })).toContainText(
      "Could not load run",
    );
  });
});
