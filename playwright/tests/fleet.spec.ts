import type { Page } from "@playwright/test";
import { expect, row, test } from "../fixtures";

/** How long a run must stay queued for "the hosts claim nothing" to mean something: many claim ticks. */
const HELD_MS = 5_000;

const fleet = (page: Page) => page.getByRole("region", { name: "Fleet" });
const hostRow = (page: Page, hostId: string) =>
  fleet(page).getByRole("table", { name: "Hosts" }).locator(`tr[data-host-id="${hostId}"]`);
/** The state badge (a late snapshot adds a second one). */
const stateBadge = (page: Page, hostId: string) => hostRow(page, hostId).locator(".badge").first();

/** Gives a host an order from its row, through the confirmation, and sees the order taken. */
async function order(page: Page, hostId: string, label: "Cordon" | "Uncordon", from: string) {
  await hostRow(page, hostId).getByRole("button", { name: label, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `${label} ${hostId}?` });
  await expect(dialog).toContainText(`${hostId} is ${from}.`);
  await dialog.getByRole("button", { name: label, exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(fleet(page).getByRole("status")).toContainText(`${label} ordered for ${hostId}`);
}

test.describe("fleet", () => {
  let hostIds: string[] = [];

  test.beforeEach(async ({ oah }) => {
    hostIds = (await oah.pool()).hosts.map((h) => h.hostId);
    expect(hostIds.length).toBeGreaterThanOrEqual(1);
  });

  // Whatever happened, the next specs get a fleet that claims.
  test.afterEach(async ({ oah }) => {
    for (const hostId of hostIds) await oah.uncordon(hostId);
  });

  test("a cordoned fleet claims nothing until it is uncordoned from the console", async ({ page, oah }) => {
    await page.goto("/storage#pool");
    await expect(fleet(page).getByTestId("controller")).toContainText("no controller");

    // Every host, not one: the deployment has several, and any active one would claim the run.
    for (const hostId of hostIds) {
      await expect(stateBadge(page, hostId)).toHaveText("active");
      // Going back gives no order.
      await hostRow(page, hostId).getByRole("button", { name: "Cordon", exact: true }).click();
      await page
        .getByRole("dialog", { name: `Cordon ${hostId}?` })
        .getByRole("button", { name: "Go back" })
        .click();
      await expect(page.getByRole("dialog")).toBeHidden();
      await expect(stateBadge(page, hostId)).toHaveText("active");

      await order(page, hostId, "Cordon", "active");
      await expect(stateBadge(page, hostId)).toHaveText("cordoned");
      await expect(hostRow(page, hostId).getByRole("button")).toHaveText(["Uncordon"]);
    }

    const run = (
      await oah.submit("fleet-cordoned", { input: { steps: [{ type: "output", value: "after uncordon" }] } })
    ).run;
    await expect(row(page, run.id)).toContainText("queued");
    for (const deadline = Date.now() + HELD_MS; Date.now() < deadline; ) {
      expect((await oah.get(run.id)).status).toBe("queued");
      await page.waitForTimeout(250);
    }
    await expect(row(page, run.id)).toContainText("queued");

    for (const hostId of hostIds) {
      await order(page, hostId, "Uncordon", "cordoned");
      await expect(stateBadge(page, hostId)).toHaveText("active");
      await expect(hostRow(page, hostId).getByRole("button")).toHaveText(["Cordon", "Drain"]);
    }
    expect(await oah.wait(run.id, { until: ["completed"], timeoutMs: 30_000 })).toMatchObject({
      output: "after uncordon",
    });
    await expect(row(page, run.id)).toContainText("completed");
  });

  test("an order the API refuses is shown with its error code", async ({ page }) => {
    const hostId = hostIds[0]!;
    await page.goto("/storage#pool");
    await expect(stateBadge(page, hostId)).toHaveText("active");
    // The host goes away between the click and the order: the real API answers for a host it does not know.
    await page.route("**/api/trpc/fleet.cordon*", (route) =>
      route.continue({ postData: JSON.stringify({ hostId: "gone-host" }) }),
    );
    await hostRow(page, hostId).getByRole("button", { name: "Cordon", exact: true }).click();
    await page
      .getByRole("dialog", { name: `Cordon ${hostId}?` })
      .getByRole("button", { name: "Cordon", exact: true })
      .click();
    await expect(fleet(page).getByRole("status")).toHaveText(
      `Cordon of ${hostId} failed: host_not_found — no live worker host gone-host`,
    );
    await expect(fleet(page).getByRole("status")).toHaveClass(/notice-error/);
    await expect(stateBadge(page, hostId)).toHaveText("active");
  });
});
