import { join } from "node:path";
import { REPO_ROOT, waitFor } from "@oah/testing";
import { expect, row, test } from "../fixtures";

const OUT = join(REPO_ROOT, "docs/screenshots");

test("screenshots of the console with real data", async ({ page, oah, state }) => {
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
    await oah.submit("approvals-18", { input: { steps: [{ type: "wait_tool", name: "approve" }] } })
  ).run;
  await oah.wait(long.id, { until: ["running"] });
  await oah.wait(approval.id, { until: ["waiting_tool"] });
  await waitFor(
    "pool history",
    async () => {
      const pool = await oah.pool();
      return pool.history.every((h) => h.samples.length >= 8);
    },
    60_000,
    1_000,
  );

  // The storage page, first screen.
  await page.goto("/storage");
  await expect(row(page, long.id)).toBeVisible();
  await expect(page.getByTestId("overview-status-completed").locator(".card-count")).not.toHaveText("…");
  await page.screenshot({ path: join(OUT, "storage.png") });

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

  // A run that recovery requeued twice, then quarantined.
  await page.goto(`/runs/${state.runs.killerB}`);
  await expect(page.getByRole("region", { name: "Recovery" })).toContainText("dead letter");
  await expect(page.getByRole("table", { name: "Events" })).toContainText("run.failed");
  await page.screenshot({ path: join(OUT, "run-detail.png"), fullPage: true });

  // The pool section.
  await page.goto("/storage#pool");
  const pool = page.getByRole("region", { name: "Pool" });
  await expect(pool.getByTestId("chart-capacity").locator("path.recharts-line-curve")).toHaveCount(4);
  await pool.scrollIntoViewIfNeeded();
  await pool.screenshot({ path: join(OUT, "pool.png") });
});
