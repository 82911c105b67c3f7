import { randomBytes } from "node:crypto";
import { type OahProcess, startOah } from "@oah/testing";
import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { type ConsoleProcess, startConsole } from "../support/console";

/**
 * A second oah-api on the shared deployment with named tokens (OAH_API_TOKENS), and a console
 * that knows only that tokens are required: what each role sees, and what the audit log keeps.
 */
test.describe("roles and the audit log", () => {
  const secret = () => `e2e-${randomBytes(16).toString("hex")}`;
  const tokens = {
    vera: { name: "vera", token: secret(), role: "viewer" },
    olga: { name: "olga", token: secret(), role: "operator" },
    sam: { name: "sam", token: secret(), role: "submitter" },
  };
  const env = { OAH_API_TOKENS: JSON.stringify(Object.values(tokens)) };
  let api: OahProcess;
  let web: ConsoleProcess;

  test.beforeAll(async ({ state }) => {
    api = await startOah("oah-api", { env: { ...state.env, ...env }, args: ["--api-only"] });
    web = await startConsole({ OAH_API_URL: api.url, ...env });
  });
  test.afterAll(async () => {
    await web?.stop();
    await api?.stop();
  });

  async function signIn(page: Page, who: keyof typeof tokens, next = "/storage") {
    await page.goto(`${web.url}/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel("API token").fill(tokens[who].token);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  test("a client's token opens no view of the console", async ({ page }) => {
    await signIn(page, "sam");
    await expect(page.getByRole("alert").filter({ hasText: "client's" })).toContainText(
      "That token is a client's (submitter)",
    );
    await expect(page).toHaveURL(/\/sign-in\?error=role/);
  });

  test("a viewer sees every view and no action button", async ({ page, state, oah }) => {
    await signIn(page, "vera", "/storage?recoveryState=quarantined");
    await expect(page.getByTestId("whoami")).toHaveText("vera · viewer");
    await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
    await expect(page.getByRole("button", { name: /^Requeue/ })).toHaveCount(0);
    await page.goto(`${web.url}/runs/${state.runs.parked}`);
    await expect(page.getByTestId("run-status")).toHaveText("waiting_tool");
    await expect(page.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
    // A viewer sees a run's checkpoints, and may not run it again from one of its steps.
    await page.goto(`${web.url}/runs/${state.runs.durable}`);
    await expect(page.getByTestId("checkpoint").first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Run again from here" })).toHaveCount(0);
    await page.goto(`${web.url}/storage#pool`);
    const hosts = page.getByRole("table", { name: "Hosts" });
    await expect(hosts.locator("tbody tr").first()).toBeVisible();
    await expect(hosts.getByRole("button")).toHaveCount(0);
    await page.goto(`${web.url}/health`);
    await expect(page.locator('tr[data-jam-kind="orphan_lock"]')).toBeVisible();
    await expect(page.getByRole("button", { name: /^Repair/ })).toHaveCount(0);
    const { sessionId } = await oah.get(state.runs.parked);
    await page.goto(`${web.url}/sessions/${encodeURIComponent(sessionId)}`);
    await expect(page.getByRole("table", { name: "Runs of the session" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel queued runs" })).toHaveCount(0);
  });

  test("an operator's orders and sign-ins are in the audit log, under the tokens' names", async ({
    page,
  }) => {
    await signIn(page, "olga", "/storage#pool");
    await expect(page.getByTestId("whoami")).toHaveText("olga · operator");
    const hosts = page.getByRole("table", { name: "Hosts" });
    const row = hosts.locator("tbody tr").first();
    const hostId = await row.getAttribute("data-host-id");
    for (const [label, state] of [
      ["Cordon", "cordoned"],
      ["Uncordon", "active"],
    ] as const) {
      await row.getByRole("button", { name: label, exact: true }).click();
      await page
        .getByRole("dialog", { name: `${label} ${hostId}?` })
        .getByRole("button", { name: label, exact: true })
        .click();
      await expect(row).toHaveAttribute("data-state", state, { timeout: 15_000 });
    }

    await page.goto(`${web.url}/audit`);
    const log = page.getByRole("table", { name: "Audit log" });
    await expect(log.locator('tr[data-audit-action="host.uncordon"][data-actor="olga"]')).toContainText(
      hostId!,
    );
    await expect(log.locator('tr[data-audit-action="host.cordon"][data-actor="olga"]')).toContainText(
      "operator",
    );
    await expect(log.locator('tr[data-audit-action="console.sign_in"][data-actor="vera"]')).toBeVisible();
    await page.getByLabel("Actor").fill("vera");
    await expect(log.locator("tbody tr").first()).toHaveAttribute("data-actor", "vera");
    await expect(log.locator('tr[data-actor="olga"]')).toHaveCount(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    const after = await fetch(`${api.url}/api/v1/audit?action=console.sign_out`, {
      headers: { authorization: `Bearer ${tokens.vera.token}` },
    });
    expect(((await after.json()) as { items: { actor: string }[] }).items[0]?.actor).toBe("olga");
  });
});
