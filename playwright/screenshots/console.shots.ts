import { join } from "node:path";
import { REPO_ROOT, waitFor } from "@oah/testing";
import type { Page } from "@playwright/test";
import { expect, row, test } from "../fixtures";

const OUT = join(REPO_ROOT, "docs/screenshots");

/** The page down to the end of its last panel: the short pages without the empty screen below. */
async function shootPanels(page: Page, file: string): Promise<void> {
  const box = await page.locator("section.panel").last().boundingBox();
  if (!box) throw new Error(`${file}: no panel on the page`);
  const width = page.viewportSize()!.width;
  await page.screenshot({
    path: join(OUT, file),
    fullPage: true,
    clip: { x: 0, y: 0, width, height: Math.ceil(box.y + box.height + 16) },
  });
}

test("screenshots of the console with real data", async ({ page, oah, state }) => {
  // A minute of traffic, the pool's history and ten pages: more than the default three minutes.
  test.setTimeout(360_000);
  const t0 = Date.now();
  const step = (what: string) =>
    process.stdout.write(`[shots] ${((Date.now() - t0) / 1000).toFixed(0)} s: ${what}\n`);
  // Traffic in waves for a minute, so that the pool's sampled history (one sample per 5 s) has a shape.
  const started = Date.now();
  let wave = 0;
  while (Date.now() - started < 60_000) {
    const sessions = [3, 9, 5, 12, 2, 7][wave % 6]!;
    await Promise.all(
      Array.from({ length: sessions }, (_, i) =>
        oah.submit(`ingest-${(wave * 7 + i) % 11}`, {
          input: {
            steps: [
              { type: "shell", command: `sleep 0.${4 + ((i * 3 + wave) % 6)}` },
              { type: "output", value: { wave, item: i } },
            ],
          },
        }),
      ),
    );
    wave++;
    await new Promise((r) => setTimeout(r, 4_000));
  }
  step("traffic done");
  // Something in flight on the page: a long run, one queued behind it, one waiting for a tool.
  const long = (
    await oah.submit("reindex-catalog", {
      input: {
        steps: [
          { type: "shell", command: "echo 'reindexing'; sleep 300" },
          { type: "output", value: "done" },
        ],
      },
    })
  ).run;
  await oah.submit("reindex-catalog", { input: { steps: [{ type: "output", value: "next" }] } });
  const approval = (
    await oah.submit("approvals-19", { input: { steps: [{ type: "wait_tool", name: "approve" }] } })
  ).run;
  await oah.wait(long.id, { until: ["running"] });
  await oah.wait(approval.id, { until: ["waiting_tool"] });
  step("runs in flight");
  await waitFor(
    "pool history",
    async () => {
      const pool = await oah.pool();
      return pool.history.every((h) => h.samples.length >= 8);
    },
    60_000,
    1_000,
  );

  step("pool history ready");
  // The storage page, first screen.
  await page.goto("/storage");
  await expect(row(page, long.id)).toBeVisible();
  await expect(page.getByTestId("overview-status-completed").locator(".card-count")).not.toHaveText("…");
  await page.screenshot({ path: join(OUT, "storage.png") });

  step("storage.png");
  // The quarantined runs, a bulk requeue's results.
  await page.goto("/storage?recoveryState=quarantined,requeued");
  await expect(row(page, state.runs.killerA)).toBeVisible();
  await page.getByRole("checkbox", { name: `Select run ${state.runs.killerA}` }).check();
  await page.getByRole("checkbox", { name: `Select run ${state.runs.flaky}` }).check();
  await page.getByRole("button", { name: "Requeue selected" }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: /^Requeue \d/ })
    .click();
  await expect(page.getByRole("region", { name: "Requeue results" })).toBeVisible();
  await page.screenshot({ path: join(OUT, "requeue.png") });

  step("requeue.png");
  // A run that recovery requeued twice, then quarantined.
  await page.goto(`/runs/${state.runs.killerB}`);
  await expect(page.getByRole("region", { name: "Recovery" })).toContainText("dead letter");
  await expect(page.getByRole("table", { name: "Events" })).toContainText("run.failed");
  await page.screenshot({ path: join(OUT, "run-detail.png"), fullPage: true });

  step("run-detail.png");
  // The dead letters: the quarantined runs grouped by reason, error code and workspace.
  // Its table is wide (each group's last executions, then its actions): a wider window shows it whole.
  await page.setViewportSize({ width: 1720, height: 768 });
  await page.goto("/dead-letters");
  const groups = page.getByRole("table", { name: "Dead-letter groups" });
  const nightly = groups.locator('tr[data-workspace="nightly-import"]');
  await expect(nightly.getByTestId("group-count")).toHaveText("2");
  await expect(groups.locator('tr[data-workspace="durable-quarantined"]')).toBeVisible();
  await shootPanels(page, "dead-letters.png");

  step("dead-letters.png");
  // A group requeued by a bulk action: its dry run, then the job's page.
  await nightly.getByRole("button", { name: "Requeue this group…" }).click();
  const dialog = page.getByRole("dialog", { name: "Requeue all 2 matching" });
  await expect(dialog.getByTestId("outcome-requeued")).toHaveText("2");
  await page.screenshot({
    path: join(OUT, "bulk-dry-run.png"),
    clip: { x: 0, y: 0, width: 1720, height: 560 },
  });
  await page.setViewportSize({ width: 1366, height: 768 });
  await dialog.getByRole("button", { name: "Requeue 2 runs" }).click();
  await expect(page).toHaveURL(/\/bulk-actions\/bulk_/);
  await expect(page.getByTestId("bulk-status")).toHaveText("completed");
  await expect(page.getByRole("table", { name: "Runs of the job" }).locator("tbody tr")).toHaveCount(2);
  await page.screenshot({ path: join(OUT, "bulk-action.png"), fullPage: true });

  step("bulk-dry-run.png, bulk-action.png");
  // The session inspector: the long run holds the session's lock, one run queued behind it.
  await page.goto("/sessions/reindex-catalog");
  await expect(page.locator(`[data-lock-holder="${long.id}"]`)).toBeVisible();
  await shootPanels(page, "session.png");

  step("session.png");
  // Health: the jammed sessions by kind, and what a repair did.
  await page.goto("/health");
  await expect(page.locator('tr[data-jam-kind="lost_wake"]')).toBeVisible();
  await page.getByRole("button", { name: "Repair lost_wake" }).click();
  await expect(page.locator('[data-repair-result="lost_wake"]')).toContainText(/Repaired \d+ sessions?/);
  await shootPanels(page, "health.png");

  step("health.png");
  // The audit log of what the operator did above.
  await page.goto("/audit");
  const audit = page.getByRole("table", { name: "Audit log" });
  await expect(audit.locator('tr[data-audit-action="bulk.start"]').first()).toBeVisible();
  await expect(audit.locator('tr[data-audit-action="jam.repair"]').first()).toBeVisible();
  await page.screenshot({ path: join(OUT, "audit.png"), fullPage: true });

  step("audit.png");
  // The pool section.
  await page.goto("/storage#pool");
  const pool = page.getByRole("region", { name: "Pool" });
  await expect(pool.getByTestId("chart-capacity").locator("path.recharts-line-curve")).toHaveCount(4);
  await pool.scrollIntoViewIfNeeded();
  await pool.screenshot({ path: join(OUT, "pool.png") });
  step("pool.png");
});
