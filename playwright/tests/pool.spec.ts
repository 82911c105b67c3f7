import { expect, test } from "../fixtures";

test.describe("pool", () => {
  test("charts render the sampled history, per host and in total", async ({ page, oah }) => {
    await page.goto("/storage#pool");
    const pool = page.getByRole("region", { name: "Pool" });
    await expect(pool).toBeVisible();
    const hosts = (await oah.pool()).hosts;
    expect(hosts.length).toBeGreaterThanOrEqual(2);
    const picker = pool.getByRole("group", { name: "Host" });
    for (const host of hosts) await expect(picker.getByRole("button", { name: host.hostId })).toBeVisible();

    // Totals: both charts have lines with one dot per sampled instant.
    const capacity = pool.getByTestId("chart-capacity");
    await expect(capacity.locator("path.recharts-line-curve")).toHaveCount(4);
    await expect(pool.getByTestId("chart-queue-wait").locator("path.recharts-line-curve")).toHaveCount(2);
    await expect
      .poll(async () => Number(await capacity.getAttribute("data-points")))
      .toBeGreaterThanOrEqual(2);
    // The history grows while the page refreshes, so the dots and the count are read together.
    await expect
      .poll(() =>
        capacity.evaluate(
          (chart) =>
            chart.querySelector(".recharts-line-dots")?.querySelectorAll("circle").length ===
            Number(chart.getAttribute("data-points")),
        ),
      )
      .toBe(true);
    for (const name of ["ready sessions", "busy workers", "idle workers", "desired"]) {
      await expect(capacity.locator(".recharts-legend-wrapper")).toContainText(name);
    }

    // One host: as many points as the API holds samples for it.
    const host = hosts[0]!;
    await picker.getByRole("button", { name: host.hostId }).click();
    await expect(picker.getByRole("button", { name: host.hostId })).toHaveAttribute("aria-pressed", "true");
    await expect
      .poll(async () => {
        const pool = await oah.pool();
        const samples = pool.history.find((h) => h.hostId === host.hostId)?.samples.length ?? -1;
        return Number(await capacity.getAttribute("data-points")) === samples && samples > 0;
      })
      .toBe(true);
    // The snapshot's facts of this host.
    const facts = pool.getByRole("definition").filter({ hasText: `${host.min} / ${host.max}` });
    await expect(facts.first()).toBeVisible();
    await expect(pool.getByLabel("Current snapshot")).toContainText("reserve deficit");
    await expect(pool.getByLabel("Current snapshot")).toContainText("locked ready");
    await expect(pool.getByLabel("Current snapshot")).toContainText("oldest ready age");
  });

  test("the decisions list shows the decisions the pool really took", async ({ page, oah }) => {
    await page.goto("/storage#pool");
    const pool = page.getByRole("region", { name: "Pool" });
    const list = pool.getByRole("list", { name: "Recent decisions" });
    await expect(list.getByTestId("decision").first()).toBeVisible();
    await expect
      .poll(async () => {
        const [shown, overview] = await Promise.all([
          list.getByTestId("decision").evaluateAll((items) =>
            items.map((li) => {
              const d = (li as HTMLElement).dataset;
              return `${d.host}|${d.at}|${d.reason}`;
            }),
          ),
          oah.pool(),
        ]);
        const expected = overview.recentDecisions.map((d) => `${d.hostId}|${d.at}|${d.reason}`);
        return JSON.stringify(shown) === JSON.stringify(expected) ? "same" : { shown, expected };
      })
      .toBe("same");
    const reasons = new Set((await oah.pool()).recentDecisions.map((d) => d.reason));
    // Every host's pool starts with a jump to its suggestion.
    expect(reasons).toContain("startup");
    for (const reason of reasons) {
      await expect(list.locator(`[data-reason="${reason}"] .badge`).first()).toHaveText(
        reason.replace("_", " "),
      );
    }
  });

  test("the workspaces table shows each workspace's load as the API reports it, parked runs included", async ({
    page,
    oah,
    state,
  }) => {
    await page.goto("/storage#pool");
    const table = page.getByRole("table", { name: "Workspaces" });
    const approvals = table.locator('tr[data-workspace-id="approvals"]');
    await expect(approvals).toBeVisible();
    const overview = await oah.pool();
    expect(overview.parkedRuns).toBeGreaterThanOrEqual(1);
    expect(overview.workspaces.find((w) => w.workspaceId === "approvals")).toMatchObject({ parkedRuns: 1 });
    await expect(approvals.locator("td").nth(3)).toHaveText("1");
    await expect(page.getByTestId("parked-runs")).toHaveText(
      `${overview.parkedRuns} ${overview.parkedRuns === 1 ? "run" : "runs"} parked waiting for a tool result, holding no slot.`,
    );
    expect((await oah.get(state.runs.parked)).workspaceId).toBe("approvals");
  });
});
