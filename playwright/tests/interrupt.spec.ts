import {
  apiRunIds,
  chooseFilter,
  expect,
  expectTableMatchesApi,
  openStorage,
  tableRunIds,
  test,
} from "../fixtures";

/**
 * A run that is in its first step long enough for the console to interrupt it, whose second step
 * must never run: an interrupt stops it between the two.
 */
const twoSteps = {
  steps: [
    { type: "shell" as const, command: "echo working; sleep 8" },
    { type: "output" as const, value: "never" },
  ],
};

test.describe("interrupts", () => {
  test("the session inspector interrupts the running run: it ends interrupted by an operator", async ({
    page,
    oah,
  }) => {
    const session = "e2e-interrupt-operator";
    const running = (await oah.submit(session, { input: twoSteps })).run;
    const next = (await oah.submit(session, { input: { steps: [{ type: "output", value: "next" }] } })).run;
    await oah.wait(running.id, { until: ["running"] });

    await page.goto(`/sessions/${session}`);
    await expect(page.locator(`tr[data-run-id="${running.id}"] td[data-if-busy]`)).toHaveText("enqueue");
    await page.getByRole("button", { name: "Interrupt the running run" }).click();
    const dialog = page.getByRole("dialog", { name: "Interrupt the running run?" });
    await expect(dialog).toContainText(running.id);
    await dialog.getByRole("button", { name: "Interrupt it" }).click();
    await expect(page.getByText(`Run ${running.id} stops at its next step boundary.`)).toBeVisible();

    const ended = await oah.wait(running.id, { timeoutMs: 30_000 });
    expect(ended).toMatchObject({
      status: "cancelled",
      errorCode: "interrupted",
      errorMessage: "interrupted by an operator",
      cancelledBy: { runId: null, reason: "interrupted" },
      output: null,
    });
    // Its first step ran to its end; the second never started.
    expect((await oah.steps(running.id)).map((s) => [s.kind, s.status])).toEqual([["tool", "completed"]]);
    expect(await oah.wait(next.id, { timeoutMs: 30_000 })).toMatchObject({ status: "completed" });
    await expect(page.locator(`tr[data-run-id="${running.id}"]`)).toHaveAttribute("data-status", "cancelled");
    await expect(page.locator(`tr[data-run-id="${next.id}"]`)).toHaveAttribute("data-status", "completed");
    // Nothing executes: nothing to interrupt.
    await expect(page.getByRole("button", { name: "Interrupt the running run" })).toHaveCount(0);

    await page.locator(`tr[data-run-id="${running.id}"]`).getByRole("link", { name: running.id }).click();
    await expect(page.getByTestId("run-status")).toHaveText("cancelled");
    await expect(page.getByTestId("ended-by")).toHaveText("Interrupted by an operator");
    await expect(page.getByTestId("if-busy")).toHaveCount(0);

    await page.goto("/audit");
    await expect(page.locator('tr[data-audit-action="run.interrupt"]').first()).toContainText(running.id);
  });

  test("a submission with ifBusy interrupt: the interrupted run links to it, and it back; Storage filters both codes", async ({
    page,
    oah,
    api,
  }) => {
    const session = "e2e-interrupt-submission";
    const first = (await oah.submit(session, { input: twoSteps })).run;
    await oah.wait(first.id, { until: ["running"] });
    const second = (
      await oah.submit(session, {
        input: { steps: [{ type: "output", value: "second" }] },
        ifBusy: "interrupt",
      })
    ).run;
    expect(await oah.wait(first.id, { timeoutMs: 30_000 })).toMatchObject({
      status: "cancelled",
      errorCode: "interrupted",
      cancelledBy: { runId: second.id, reason: "interrupted" },
    });
    expect(await oah.wait(second.id, { timeoutMs: 30_000 })).toMatchObject({ status: "completed" });
    // A replace of a queued run behind a running one: the other code.
    const third = (await oah.submit(session, { input: twoSteps })).run;
    await oah.wait(third.id, { until: ["running"] });
    const behind = (await oah.submit(session, { input: { steps: [{ type: "output", value: "behind" }] } }))
      .run;
    const replacing = (
      await oah.submit(session, {
        input: { steps: [{ type: "output", value: "replacing" }] },
        ifBusy: "replace",
      })
    ).run;
    expect(await oah.get(behind.id)).toMatchObject({ status: "cancelled", errorCode: "replaced" });

    await page.goto(`/runs/${first.id}`);
    await expect(page.getByTestId("ended-by")).toHaveText(`Interrupted by ${second.id}`);
    await page.getByTestId("ended-by").getByRole("link", { name: second.id }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${second.id}$`));
    await expect(page.getByTestId("if-busy")).toContainText("interrupt");
    await expect(page.getByTestId("ended-runs")).toHaveText(`Interrupted ${first.id}`);
    await expect(page.getByTestId("ended-by")).toHaveCount(0);
    await page.getByTestId("ended-runs").getByRole("link", { name: first.id }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${first.id}$`));

    await expect
      .poll(async () => (await oah.get(replacing.id)).status, { timeout: 30_000 })
      .toBe("completed");
    await page.goto(`/runs/${replacing.id}`);
    await expect(page.getByTestId("if-busy")).toContainText("replace");
    const replaced = page.getByTestId("ended-runs");
    await expect(replaced).toContainText("Replaced");
    for (const id of [third.id, behind.id])
      await expect(replaced.getByRole("link", { name: id })).toBeVisible();
    await page.goto(`/runs/${behind.id}`);
    await expect(page.getByTestId("ended-by")).toHaveText(`Replaced by ${replacing.id}`);

    // The Storage filter by these error codes lists exactly those runs.
    await openStorage(page);
    await chooseFilter(page, "Error code", ["interrupted", "replaced"]);
    const expected = await apiRunIds(api, { errorCode: "interrupted,replaced" });
    expect(expected).toEqual(expect.arrayContaining([first.id, behind.id, third.id]));
    await expectTableMatchesApi(page, api, { errorCode: "interrupted,replaced" });
    await page.goto("/storage?errorCode=replaced");
    await expectTableMatchesApi(page, api, { errorCode: "replaced" });
    expect(await tableRunIds(page)).toEqual(expect.arrayContaining([behind.id, third.id]));
    expect(await tableRunIds(page)).not.toContain(first.id);
  });
});
