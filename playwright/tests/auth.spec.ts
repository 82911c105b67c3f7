import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { type OahProcess, startOah } from "@oah/testing";
import { expect, test } from "../fixtures";
import { type ConsoleProcess, startConsole } from "../support/console";

/**
 * A second oah-api on the same deployment that requires a token, and a console configured with
 * one: operators sign in, and the token never reaches the browser's scripts.
 */
test.describe("with a token", () => {
  const token = `e2e-${randomBytes(16).toString("hex")}`;
  let api: OahProcess;
  let web: ConsoleProcess;

  test.beforeAll(async ({ state }) => {
    api = await startOah("oah-api", { env: { ...state.env, OAH_API_TOKEN: token }, args: ["--api-only"] });
    web = await startConsole({ OAH_API_URL: api.url, OAH_API_TOKEN: token });
  });
  test.afterAll(async () => {
    await web?.stop();
    await api?.stop();
  });

  test("an unauthenticated visit lands on sign-in; a wrong token is refused; the right one gets in", async ({
    page,
    context,
  }) => {
    const seen: { url: string; body: string }[] = [];
    page.on("response", async (response) => {
      const type = response.headers()["content-type"] ?? "";
      if (/html|javascript|json|css|text/.test(type)) {
        seen.push({ url: response.url(), body: await response.text().catch(() => "") });
      }
    });

    await page.goto(`${web.url}/storage?status=failed`);
    await expect(page).toHaveURL(`${web.url}/sign-in?next=%2Fstorage%3Fstatus%3Dfailed`);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    // The API itself refuses calls without a session.
    expect((await page.request.get(`${web.url}/api/trpc/admin.overview`)).status()).toBe(401);

    await page.getByLabel("API token").fill(`${token}-wrong`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "token was refused" })).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in\?error=refused/);
    expect(await context.cookies()).toHaveLength(0);

    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${web.url}/storage?status=failed`);
    await expect(page.locator("table.runs-table tbody tr").first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();

    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    expect(await page.evaluate(() => document.cookie)).not.toContain(token);

    // Every page, script and answer the browser received: the token is in none of them.
    await page.goto(
      `${web.url}/runs/${(await page.locator("table.runs-table tbody tr").first().getAttribute("data-run-id")) ?? ""}`,
    );
    await expect(page.getByTestId("run-status")).toBeVisible();
    expect(seen.length).toBeGreaterThan(5);
    expect(
      seen.filter((r) => r.url.includes("/_next/static/") && r.url.endsWith(".js")).length,
    ).toBeGreaterThan(0);
    for (const response of seen) expect(response.body, response.url).not.toContain(token);
    expect(await page.content()).not.toContain(token);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(`${web.url}/storage`);
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("after sign-in the console returns only to its own pages: a tab-smuggled address goes home", async ({
    page,
  }) => {
    await page.goto(`${web.url}/sign-in?next=${encodeURIComponent("/storage?status=failed")}`);
    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${web.url}/storage?status=failed`);
    // Signed in, the sign-in page sends the operator on by itself: never off-site.
    for (const next of ["/%09/evil.example", "//evil.example", "/%5Cevil.example", "https://evil.example/"]) {
      await page.goto(`${web.url}/sign-in?next=${next}`);
      await expect(page).toHaveURL(`${web.url}/storage`);
    }
  });

  test("guessing the token is slowed down per address: past ten refusals even the right one waits, answered 429 with when to come back", async ({
    playwright,
  }) => {
    // A console of its own: its refusals must not slow the other tests down (same address).
    const guarded = await startConsole({ OAH_API_URL: api.url, OAH_API_TOKEN: token });
    const client = await playwright.request.newContext({ baseURL: guarded.url, maxRedirects: 0 });
    try {
      const signIn = async (value: string) => {
        const res = await client.post("/api/auth/sign-in", { form: { token: value, next: "/storage" } });
        if (res.status() === 429)
          return `429 ${res.headers()["retry-after"]} ${/retry in \d+ s/.exec(await res.text())}`;
        return new URL(res.headers().location ?? "", guarded.url).searchParams.get("error");
      };
      const answers: (string | null)[] = [];
      for (let i = 0; i < 12; i++) answers.push(await signIn(`${token.slice(0, -1)}${i % 10}x`));
      expect(answers.slice(0, 10)).toEqual(Array(10).fill("refused"));
      expect(answers.slice(10)).toEqual([
        expect.stringMatching(/^429 [1-6] retry in [1-6] s$/),
        expect.stringMatching(/^429 [1-6] retry in [1-6] s$/),
      ]);
      expect(await signIn(token)).toMatch(/^429 /);
    } finally {
      await client.dispose();
      await guarded.stop();
    }
  });

  test("a session the API no longer accepts goes back to sign-in", async ({ page, context }) => {
    await context.addCookies([
      {
        name: "oah_console_token",
        value: "stale-token-000000",
        url: web.url,
        httpOnly: true,
        sameSite: "Strict",
      },
    ]);
    await page.goto(`${web.url}/storage`);
    await expect(page).toHaveURL(/\/sign-in\?error=expired/);
    await expect(page.getByRole("alert").filter({ hasText: "no longer accepts" })).toBeVisible();
  });
});

test.describe("without a token", () => {
  test("there is no sign-in", async ({ page }) => {
    await page.goto("/sign-in");
    await expect(page).toHaveURL(/\/storage$/);
    await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  });

  test("the API routes refuse other sites and other host names", async ({ state }) => {
    const url = new URL("/api/trpc/admin.overview", state.consoleUrl);
    const status = (headers: Record<string, string>, method = "GET", body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(url, { method, headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end(body);
      });
    expect(await status({})).toBe(200);
    // A page of another site, and a name that rebinds to this machine.
    expect(await status({ origin: "http://attacker.example", "sec-fetch-site": "cross-site" })).toBe(403);
    expect(await status({ host: `attacker.example:${url.port}` })).toBe(403);
    const requeue = new URL("/api/trpc/admin.requeue", state.consoleUrl);
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(requeue, { method: "POST", headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end(JSON.stringify({ runId: state.runs.plainFailed }));
      });
    // A form post of another page cannot send JSON.
    expect(await post({ "content-type": "text/plain" })).toBe(415);
    expect(await post({ "content-type": "application/json", origin: "http://attacker.example" })).toBe(403);
  });
});
