import { JAM_KINDS } from "@oah/core";
import { expect, test } from "../fixtures";

test.describe("session inspector and health", () => {
  test("shows who holds a running session's lock, and cancels its queued runs", async ({
    page,
    oah,
    api,
  }) => {
    const submit = async (ms: number) =>
      (await oah.submit("e2e-inspected", { input: { steps: [{ type: "sleep", ms }] } })).run;
    const running = await submit(120_000);
    const queued = [await submit(1), await submit(1), await submit(1)];
    await oah.wait(running.id, { until: ["running"] });

    await page.goto("/sessions/e2e-inspected");
    await expect(page.locator(`[data-lock-holder="${running.id}"]`)).toBeVisible();
    await expect(page.locator("[data-lock-host]")).toHaveText(/^sandbox-/);
    await expect(page.locator(`tr[data-run-id="${running.id}"]`)).toContainText("head");
    for (const run of queued)
      await expect(page.locator(`tr[data-run-id="${run.id}"]`)).toHaveAttribute("data-status", "queued");

    await page.getByRole("button", { name: "Cancel queued runs" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel the session's queued runs?" });
    await dialog.getByRole("button", { name: "Cancel queued runs" }).click();
    await expect(page.getByText("Cancelled 3 queued runs.")).toBeVisible();
    for (const run of queued)
      await expect(page.locator(`tr[data-run-id="${run.id}"]`)).toHaveAttribute("data-status", "cancelled");
    await expect(page.locator(`tr[data-run-id="${running.id}"]`)).toHaveAttribute("data-status", "running");
    for (const run of queued) expect((await oah.get(run.id)).status).toBe("cancelled");

    await oah.cancel(running.id);
    await oah.wait(running.id, { until: ["cancelled"], timeoutMs: 20_000 });

    const { actor } = (await api.get<{ actor: { name: string } }>("/api/v1/auth/whoami")).body;
    await page.goto("/audit");
    await expect(
      page.locator(`tr[data-audit-action="session.cancel_queued"][data-actor="${actor.name}"]`).first(),
    ).toContainText("e2e-inspected");
  });

  test("the Health panel lists every kind of jam and shows what a repair did", async ({ page, api }) => {
    await page.goto("/health");
    for (const kind of JAM_KINDS) await expect(page.locator(`tr[data-jam-kind="${kind}"]`)).toBeVisible();
    await page.getByRole("button", { name: "Repair lost_wake" }).click();
    await expect(page.locator('[data-repair-result="lost_wake"]')).toContainText(
      /Repaired \d+ sessions?, skipped \d+\./,
    );
    const { actor } = (await api.get<{ actor: { name: string } }>("/api/v1/auth/whoami")).body;
    await page.goto("/audit");
    await expect(
      page.locator(`tr[data-audit-action="jam.repair"][data-actor="${actor.name}"]`).first(),
    ).toContainText("lost_wake");
  });
});
