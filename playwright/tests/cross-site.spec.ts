import { createServer, type Server } from "node:http";
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../chromium";
import { expect, test } from "../fixtures";

/**
 * What a page of another site can do to the token-less default (the API and the console on
 * loopback, no OAH_API_TOKEN): nothing. Attacks run in Chromium from pages served by a server
 * of the test's own, on another origin (`localhost` while the API is at 127.0.0.1).
 */

const submission = (sessionId: string) =>
  JSON.stringify({ input: { steps: [{ type: "shell", command: `touch pwned-${sessionId}` }] } });

/** A server of the attacker's pages: each path is a page (HTML). */
async function attackerSite(
  pages: Record<string, string>,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const page = pages[req.url ?? "/"];
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(page ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** How many requests the API refused with this code so far (its own metrics, route label = the code). */
async function refusedCount(apiUrl: string, code: string): Promise<number> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("oah_http_request_duration_seconds_count{") && line.includes(`route="${code}"`))
      total += Number(line.split(" ").at(-1));
  }
  return total;
}

test.describe("a page of another site and the token-less default", () => {
  test("cannot submit runs with a no-cors fetch, sendBeacon or a form post", async ({ page, api, state }) => {
    const target = state.apiUrl;
    const site = await attackerSite({
      "/": `<!doctype html><title>cat pictures</title>
        <form id="f" method="post" action="${target}/api/v1/sessions/xsite-form/runs" enctype="text/plain" target="sink">
          <input name='${submission("xsite-form").slice(0, -1)},"x":"' value='"}'>
        </form>
        <iframe name="sink"></iframe>
        <script>
          const body = (s) => new Blob([${JSON.stringify(submission("SESSION"))}.replace("SESSION", s)]);
          fetch("${target}/api/v1/sessions/xsite-fetch/runs", { method: "POST", mode: "no-cors", body: body("xsite-fetch") });
          fetch("${target}/trpc/runs.submit", { method: "POST", mode: "no-cors",
            body: JSON.stringify({ sessionId: "xsite-trpc", input: { steps: [] } }) });
          navigator.sendBeacon("${target}/api/v1/sessions/xsite-beacon/runs", body("xsite-beacon"));
          document.getElementById("f").submit();
          window.done = true;
        </script>`,
    });
    try {
      const before = await refusedCount(target, "forbidden_origin");
      await page.goto(site.origin);
      await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true);
      // All four reached the API, which refused them before reading a byte of their bodies.
      await expect.poll(() => refusedCount(target, "forbidden_origin"), { timeout: 10_000 }).toBe(before + 4);
      for (const session of ["xsite-form", "xsite-fetch", "xsite-trpc", "xsite-beacon"]) {
        const runs = await api.get<{ items: unknown[] }>(`/api/v1/sessions/${session}/runs`);
        expect(runs.body.items).toEqual([]);
      }
    } finally {
      await site.close();
    }
  });

  test("a page that rebinds its name to this machine gets refused by the API and by the console", async ({
    api,
    state,
  }) => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
    });
    try {
      const page = await browser.newPage();
      const apiPort = new URL(state.apiUrl).port;
      // The attacker's name now leads to the API: the page is same-origin with it, and asks.
      const landing = await page.goto(`http://rebind.test:${apiPort}/healthz`);
      expect(landing?.status()).toBe(403);
      const answer = await page.evaluate(async () => {
        const res = await fetch("/api/v1/sessions/rebound/runs", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { steps: [{ type: "shell", command: "touch pwned" }] } }),
        });
        return { status: res.status, body: await res.json() };
      });
      expect(answer).toMatchObject({ status: 403, body: { error: { code: "forbidden_origin" } } });
      expect((await api.get<{ items: unknown[] }>("/api/v1/sessions/rebound/runs")).body.items).toEqual([]);
      // The same name leading to the console.
      const consolePage = await page.goto(`http://rebind.test:${new URL(state.consoleUrl).port}/storage`);
      expect(consolePage?.status()).toBe(403);
      await expect(page.locator("body")).toContainText("loopback name only");
      const data = await page.evaluate(async () => (await fetch("/api/trpc/admin.overview")).status);
      expect(data).toBe(403);
    } finally {
      await browser.close();
    }
  });

  test("cannot show the console in a frame (its buttons would be clickable there)", async ({
    page,
    state,
  }) => {
    const site = await attackerSite({
      "/": `<!doctype html><title>win a prize</title><iframe id="c" src="${state.consoleUrl}/storage" width="1000" height="600"></iframe>`,
    });
    const refusals: string[] = [];
    page.on("console", (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    try {
      await page.goto(site.origin);
      await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame?.url()).not.toContain("/storage");
      await expect(page.frameLocator("#c").locator("table.runs-table")).toHaveCount(0);
    } finally {
      await site.close();
    }
    // Its own pages carry the headers that forbid it.
    const own = await page.goto(`${state.consoleUrl}/storage`);
    const headers = own!.headers();
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers).toMatchObject({
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
  });
});
