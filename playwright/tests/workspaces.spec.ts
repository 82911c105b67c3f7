import type { ModelUsageHour } from "@oah/contract";
import type { ApiClient } from "@oah/testing";
import { expect, test } from "../fixtures";

const WORKSPACE = "e2e-workspaces";

/** The workspace's model calls and tokens over the last day, as oah-api counts them. */
async function usageOf(api: ApiClient) {
  const { items } = (await api.get<{ items: ModelUsageHour[] }>(`/api/v1/usage?workspaceId=${WORKSPACE}`))
    .body;
  return items.reduce(
    (sum, h) => ({ calls: sum.calls + h.calls, tokens: sum.tokens + h.promptTokens + h.completionTokens }),
    { calls: 0, tokens: 0 },
  );
}

test.describe("workspaces", () => {
  test("after a run's model step, the Workspaces page lists its workspace with that call", async ({
    page,
    api,
    oah,
  }) => {
    const before = await usageOf(api);
    const { run } = await oah.submit("e2e-workspaces-session", {
      input: { steps: [{ type: "model", prompt: "Say something." }] },
      workspaceId: WORKSPACE,
    });
    expect(await oah.wait(run.id, { timeoutMs: 30_000 })).toMatchObject({ status: "completed" });
    const after = await usageOf(api);
    expect(after.calls).toBe(before.calls + 1);
    // The stand-in reports usage: one message sent (10 tokens), 3 for the answer.
    expect(after.tokens).toBe(before.tokens + 13);

    // Reached from the main navigation.
    await page.goto("/storage");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workspaces" }).click();
    await expect(page).toHaveURL(/\/workspaces$/);
    const row = page
      .getByRole("table", { name: "Workspaces" })
      .locator(`tr[data-workspace-id="${WORKSPACE}"]`);
    await expect(row.getByTestId("calls")).toHaveText(after.calls.toLocaleString("en-US"));
    await expect(row.getByTestId("tokens")).toHaveText(after.tokens.toLocaleString("en-US"));
    // Its run has ended: nothing of it executes, waits or is parked.
    for (const figure of ["executing", "ready", "parked"])
      await expect(row.getByTestId(figure)).toHaveText("0");
    // 24 hourly bars that add up to the workspace's tokens.
    const bars = row.getByRole("img", { name: "Tokens by hour, last 24 hours" }).locator("rect");
    await expect(bars).toHaveCount(24);
    const perHour = await bars.evaluateAll((rects) =>
      rects.map((r) => Number(r.getAttribute("data-tokens"))),
    );
    expect(perHour.reduce((a, b) => a + b, 0)).toBe(after.tokens);
  });
});
