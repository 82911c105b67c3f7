import { createClient } from "@oah/client";
import { startFakeModel, startSplitDeployment } from "@oah/testing";
import type { Page } from "@playwright/test";
import { expect, row, test } from "../fixtures";
import { startConsole } from "../support/console";
import { startRelay } from "../support/relay";

const badge = (page: Page) => page.getByTestId("live-state");

/** The event streams oah-api serves now (its own metrics). */
async function streamsOpen(apiUrl: string): Promise<number> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("oah_event_streams_open "));
  return Number(line?.split(" ").at(-1));
}

/** The console's calls of one query procedure (not its subscriptions), as the page makes them from now on. */
function countCalls(page: Page, procedure: string): () => number {
  let calls = 0;
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === `/api/trpc/${procedure}`) calls++;
  });
  return () => calls;
}

test.describe("live data", () => {
  test("the runs table and the counts refresh on their own", async ({ page, oah }) => {
    await page.goto("/storage");
    await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
    await expect(badge(page)).toHaveAttribute("data-state", "live");
    const before = Number(
      await page.getByTestId("overview-status-completed").locator(".card-count").getAttribute("data-count"),
    );
    const run = (await oah.submit("live-check", { input: { steps: [{ type: "output", value: "fresh" }] } }))
      .run;
    await oah.wait(run.id, { until: ["completed"] });
    // No reload: the change announced by the stream brings the run and the new count.
    await expect(row(page, run.id)).toBeVisible({ timeout: 10_000 });
    await expect(row(page, run.id)).toContainText("completed");
    await expect(page.getByTestId("overview-status-completed").locator(".card-count")).not.toHaveAttribute(
      "data-count",
      String(before),
    );
  });

  test("a failed refresh shows a banner and keeps the last data", async ({ page, oah }) => {
    await page.goto("/storage");
    const rows = page.locator("table.runs-table tbody tr");
    await expect(rows.first()).toBeVisible();
    const count = await rows.count();

    await page.route("**/api/trpc/admin.runs**", (route) =>
      route.fulfill({
        status: 502,
        contentType: "application/json",
        body: JSON.stringify({
          error: {
            message: "The console cannot reach oah-api (ECONNREFUSED).",
            code: -32603,
            data: { code: "BAD_GATEWAY", httpStatus: 502, errorCode: "api_unreachable" },
          },
        }),
      }),
    );
    // While live, the table refetches when something changed: a new run.
    (await oah.submit("live-check", { input: { steps: [{ type: "output", value: "unseen" }] } })).run;
    const banner = page.getByRole("alert").filter({ hasText: "Refresh failed" });
    await expect(banner).toBeVisible({ timeout: 15_000 });
    await expect(banner).toContainText("cannot reach oah-api");
    await expect(banner).toContainText("Showing data from");
    await expect(rows).toHaveCount(count);
    // Non-blocking: the page still works while the banner shows.
    await page.getByRole("checkbox", { name: "Select all on page" }).check();
    await expect(page.getByText(`${count} selected`)).toBeVisible();

    await page.unroute("**/api/trpc/admin.runs**");
    await expect(banner).toBeHidden({ timeout: 15_000 });
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(count);
  });

  test("the console says what to do when oah-api cannot be reached at all", async ({ page }) => {
    await page.route("**/api/trpc/**", (route) =>
      route.fulfill({
        status: 502,
        contentType: "application/json",
        body: JSON.stringify({
          error: {
            message: "The console cannot reach oah-api at http://127.0.0.1:1 (ECONNREFUSED).",
            code: -32603,
            data: { code: "BAD_GATEWAY", httpStatus: 502, errorCode: "api_unreachable" },
          },
        }),
      }),
    );
    await page.goto("/storage");
    await expect(page.getByText("Could not load runs.")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText("Check that oah-api is running").first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Retry" }).first()).toBeVisible();
  });

  test("the run page follows the run's stream: its events, status and steps as they happen", async ({
    page,
    oah,
  }) => {
    const run = (
      await oah.submit("live-run", {
        input: {
          steps: [
            { type: "shell", command: "echo 'draft ready'" },
            { type: "wait_tool", name: "approve" },
            { type: "shell", command: "echo 'approved'" },
            { type: "output", value: "shipped" },
          ],
        },
      })
    ).run;
    await oah.wait(run.id, { until: ["waiting_tool"] });
    await page.goto(`/runs/${run.id}`);
    await expect(page.getByTestId("run-status")).toHaveText("waiting_tool");
    await expect(badge(page)).toHaveAttribute("data-state", "live");
    await expect(badge(page)).toHaveText("live");
    await expect(page.locator('tr[data-event-type="run.waiting_tool"]')).toBeVisible();

    // From here on the events list cannot be refetched: whatever event appears came by the stream.
    await page.route(
      (url) => url.pathname === "/api/trpc/runs.events",
      (route) => route.abort(),
    );
    await oah.submitToolResult(run.id, "approve", { ok: true });

    await expect(page.locator('tr[data-event-type="run.resumed"]')).toBeVisible({ timeout: 5_000 });
    await expect(page.locator('tr[data-event-type="run.completed"]')).toBeVisible({ timeout: 10_000 });
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    // Each of the run's events once, in order, as the API stored them.
    const stored = await oah.listEvents(run.id);
    await expect(page.getByRole("table", { name: "Events" }).locator("tbody tr td:first-child")).toHaveText(
      stored.items.map((e) => String(e.id)),
    );
    await expect(page.getByRole("list", { name: "Steps" }).locator(".step")).toHaveCount(
      (await oah.steps(run.id)).length,
    );
    // A finished run's stream ends: the page is back on its (slow) refresh, and says nothing of a stream.
    await expect(badge(page)).toHaveCount(0);
  });

  test("the badge says reconnecting while oah-api is away, live again once it is back; the stream ends with the page", async ({
    page,
    state,
  }) => {
    const relay = await startRelay(state.apiUrl);
    const web = await startConsole({ OAH_API_URL: relay.url });
    const before = await streamsOpen(state.apiUrl);
    try {
      await page.goto(`${web.url}/storage`);
      await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
      await expect(badge(page)).toHaveAttribute("data-state", "live");

      const overviewCalls = countCalls(page, "admin.overview");
      await relay.stop();
      await expect(badge(page)).toHaveAttribute("data-state", "reconnecting");
      await expect(badge(page)).toContainText("reconnecting");
      // Without the stream the page falls back on its periodic refresh (which fails while the API is away).
      await expect.poll(overviewCalls, { timeout: 10_000 }).toBeGreaterThan(0);

      await relay.start();
      await expect(badge(page)).toHaveAttribute("data-state", "live", { timeout: 20_000 });
      await expect(badge(page)).toContainText("live");
      await expect(page.getByRole("alert").filter({ hasText: "Refresh failed" })).toBeHidden({
        timeout: 15_000,
      });
      expect(await streamsOpen(state.apiUrl)).toBe(before + 1);

      // The page gone, the console closes its stream to oah-api too.
      await page.goto("about:blank");
      await expect.poll(() => streamsOpen(state.apiUrl)).toBe(before);
    } finally {
      await web.stop();
      await relay.stop();
    }
  });

  test("the run page shows the model's text as it is written, then the stored step", async ({ page }) => {
    const model = await startFakeModel();
    const deployment = await startSplitDeployment({
      sandboxes: 1,
      env: { OAH_MODEL_BASE_URL: model.url, OAH_MODEL_NAME: "fake-1" },
    });
    const web = await startConsole({ OAH_API_URL: deployment.api.url });
    const deploymentClient = createClient({
      baseUrl: deployment.api.url,
      token: deployment.env.OAH_API_TOKEN,
    });
    try {
      // A word every few milliseconds: seconds of writing, long enough to be seen.
      const answer = Array.from({ length: 800 }, (_, i) => `word${i}`).join(" ");
      model.reply({ content: answer });
      const run = (
        await deploymentClient.submit("live-model", {
          input: {
            steps: [
              { type: "wait_tool", name: "go" },
              { type: "model", prompt: "Write." },
            ],
          },
        })
      ).run;
      await deploymentClient.wait(run.id, { until: ["waiting_tool"] });
      await page.goto(`${web.url}/runs/${run.id}`);
      await expect(badge(page)).toHaveAttribute("data-state", "live");
      await deployment.client.post(`/api/v1/runs/${run.id}/tool-results`, { name: "go", output: true });

      const writing = page.getByRole("figure", { name: "Model writing" });
      await expect(writing).toContainText("word0 word1");
      await expect(writing).toBeHidden({ timeout: 20_000 });
      await expect(page.getByTestId("run-status")).toHaveText("completed");
      const modelStep = page
        .getByRole("list", { name: "Steps" })
        .locator(".step")
        .filter({ hasText: "fake-1" });
      await modelStep.locator("summary").click();
      await expect(modelStep).toContainText("word799");
    } finally {
      await web.stop();
      await deployment.dispose();
      await model.close();
    }
  });
});
