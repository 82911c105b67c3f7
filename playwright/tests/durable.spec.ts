import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";

/** The run page's step of this id. */
const stepOf = (page: Page, stepId: number) =>
  page.getByRole("list", { name: "Steps" }).locator(`li[data-step-id="${stepId}"]`);

/** The run's own steps (its shell steps), in order, as the API lists them. */
async function toolSteps(oah: import("@oah/client").OahClient, runId: string) {
  return (await oah.steps(runId)).filter((s) => s.kind === "tool");
}

test.describe("durable runs", () => {
  test("a resumed run shows its checkpoints and its resume; run again from a step makes a fork linked both ways", async ({
    page,
    oah,
    state,
  }) => {
    const source = state.runs.durable;
    // Attempt 1: two shell steps done, killed in the third; attempt 2: the third again, completed.
    const [dumped, compressed, crashed, rerun] = await toolSteps(oah, source);
    expect(rerun).toBeDefined();

    await page.goto(`/runs/${source}`);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    // A checkpoint after each completed step, the first two by attempt 1.
    for (const step of [dumped!, compressed!])
      await expect(stepOf(page, step.id).getByTestId("checkpoint")).toContainText("checkpoint · attempt 1");
    await expect(stepOf(page, crashed!.id).getByTestId("checkpoint")).toHaveCount(0);
    await expect(stepOf(page, rerun!.id).getByTestId("checkpoint")).toContainText("attempt 2");

    const resumes = page.getByRole("list", { name: "Resumes" });
    await expect(resumes.getByRole("listitem")).toHaveCount(1);
    await expect(resumes).toContainText(
      `Resumed after step #${compressed!.id} following recovery (attempt 2)`,
    );
    await expect(resumes).toContainText("Not done again: 2 tool steps.");
    await expect(resumes).toContainText(`step #${crashed!.id} (shell) was in flight: done again.`);

    // Run again from a step with a checkpoint before it: not the first, which has none.
    await expect(stepOf(page, dumped!.id).getByRole("button", { name: "Run again from here" })).toHaveCount(
      0,
    );
    await stepOf(page, compressed!.id).getByRole("button", { name: "Run again from here" }).click();
    await expect(page).not.toHaveURL(new RegExp(`/runs/${source}$`));
    await expect(page).toHaveURL(/\/runs\/run_/);
    const forkId = page.url().split("/").pop()!;
    const forkedFrom = page.getByTestId("forked-from");
    await expect(forkedFrom).toHaveText(`run ${source} at step #${compressed!.id}`);

    // The fork goes on from the checkpoint after the first step: it does the second and what follows.
    expect(await oah.wait(forkId, { timeoutMs: 45_000 })).toMatchObject({
      status: "completed",
      output: "backed up",
      forkedFrom: { runId: source, stepId: compressed!.id },
    });
    const forkSteps = await toolSteps(oah, forkId);
    expect(forkSteps.map((s) => (s.output as { stdout: string }).stdout)).toEqual([
      "compressed the dump\n",
      "execution 3\n",
    ]);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(page.getByRole("list", { name: "Resumes" })).toContainText(
      `Went on from the checkpoint before step #${compressed!.id} of the run it was forked from (attempt 1)`,
    );
    await expect(page.getByRole("list", { name: "Resumes" })).toContainText("Not done again: 1 tool step.");
    await expect(page.getByTestId("checkpoint").first()).toContainText("from the run it was forked from");

    // The source lists its fork.
    await forkedFrom.getByRole("link", { name: source }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${source}$`));
    const forks = page.getByRole("list", { name: "Forks" });
    await expect(forks).toContainText(`at step #${compressed!.id}`);
    await forks.getByRole("link", { name: forkId }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${forkId}$`));
  });

  test("a requeue that starts over sends fromStart: the run runs again from its first step", async ({
    page,
    oah,
    state,
  }) => {
    const runId = state.runs.durableQuarantined;
    expect(await oah.get(runId)).toMatchObject({
      status: "failed",
      recoveryState: "quarantined",
      attempt: 3,
    });
    const [listed] = await toolSteps(oah, runId);

    await page.goto(`/runs/${runId}`);
    // Attempts 2 and 3 went on after the first step.
    const resumes = page.getByRole("list", { name: "Resumes" });
    await expect(resumes.getByRole("listitem")).toHaveCount(2);
    await expect(resumes).toContainText(`Resumed after step #${listed!.id} following recovery (attempt 3)`);

    await page.getByRole("button", { name: "Requeue…" }).click();
    const dialog = page.getByRole("dialog", { name: "Requeue this run?" });
    const resume = dialog.getByRole("radio", {
      name: `Resume after step #${listed!.id}, its last checkpoint`,
    });
    await expect(resume).toBeChecked();
    await dialog
      .getByRole("radio", { name: "Start over from the first step (its checkpoints dropped)" })
      .check();
    await dialog.getByRole("button", { name: "Requeue", exact: true }).click();
    await expect(page.getByText("Requeued (was failed).")).toBeVisible();

    expect(await oah.wait(runId, { timeoutMs: 45_000 })).toMatchObject({
      status: "completed",
      output: "rotated",
      attempt: 4,
    });
    const events = (await oah.listEvents(runId)).items;
    expect(events.filter((e) => e.type === "run.requeued").at(-1)?.data).toMatchObject({ fromStart: true });
    // Its first step ran again: once by attempt 1, once by attempt 4; attempt 4 resumed from nothing.
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await expect(
      page
        .getByRole("list", { name: "Steps" })
        .getByRole("listitem")
        .filter({ hasText: "listed 12 archives" }),
    ).toHaveCount(2);
    await expect(resumes.getByRole("listitem")).toHaveCount(2);
    await expect(page.getByTestId("checkpoint").filter({ hasText: "attempt 4" })).toHaveCount(2);
  });

  test("the bulk requeue's start over sends fromStart", async ({ page, state }) => {
    const completed = state.runs.completed[1]!;
    await page.goto("/storage?limit=200");
    await page.getByRole("checkbox", { name: `Select run ${completed}` }).check();
    await page.getByRole("button", { name: "Requeue selected" }).click();
    const dialog = page.getByRole("dialog", { name: "Requeue 1 run?" });
    await expect(
      dialog.getByRole("radio", {
        name: "Resume each from its last checkpoint (one without any starts from its first step)",
      }),
    ).toBeChecked();
    await dialog
      .getByRole("radio", { name: "Start over from the first step (its checkpoints dropped)" })
      .check();
    const sent = page.waitForRequest((r) => r.url().includes("admin.requeueMany"));
    await dialog.getByRole("button", { name: "Requeue 1" }).click();
    expect(JSON.parse((await sent).postData() ?? "{}")).toMatchObject({
      fromStart: true,
      runIds: [completed],
    });
    // A completed run is refused, whichever the choice.
    const results = page.getByRole("region", { name: "Requeue results" });
    await expect(results.locator(`li[data-run-id="${completed}"]`)).toHaveAttribute(
      "data-outcome",
      "run_requeue_invalid_status",
    );
  });
});
