import { readFileSync } from "node:fs";
import { request } from "node:http";
import { expect, test } from "../fixtures";
import { type ConsoleProcess, startConsole } from "../support/console";

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/**
 * Sends `totalMb` of body in 1 MiB chunks as fast as the server takes them, and stops at its
 * answer: resolves with the status and how many MiB had gone by then.
 */
function streamBody(url: string, totalMb: number, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; sentMb: number }>((resolve, reject) => {
    const chunk = Buffer.alloc(1024 * 1024, "x");
    let sent = 0;
    let answered = false;
    const req = request(
      url,
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        answered = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, sentMb: sent });
        req.destroy();
      },
    );
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < totalMb) {
        sent++;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

test.describe("the console's bounds", () => {
  let web: ConsoleProcess;
  test.beforeAll(async ({ state }) => {
    web = await startConsole({ OAH_API_URL: state.apiUrl });
  });
  test.afterAll(async () => web?.stop());

  test("a 150 MB body is refused at the limit (413), read no further, and the console stays small", async () => {
    const before = rssMb(web.child.pid!);
    const { status, sentMb } = await streamBody(`${web.url}/api/trpc/admin.requeue`, 150);
    expect(status).toBe(413);
    expect(sentMb).toBeLessThan(50);
    expect(rssMb(web.child.pid!) - before).toBeLessThan(60);
    // And it still serves.
    expect((await fetch(`${web.url}/api/trpc/admin.overview`)).status).toBe(200);
  });

  test("with a token, a body without a session is refused before a byte is read", async ({ state }) => {
    const token = `bounds-${"0123456789abcdef".repeat(2)}`;
    const guarded = await startConsole({ OAH_API_URL: state.apiUrl, OAH_API_TOKEN: token });
    try {
      const { status, sentMb } = await streamBody(`${guarded.url}/api/trpc/admin.requeue`, 150);
      expect(status).toBe(401);
      expect(sentMb).toBeLessThan(50);
    } finally {
      await guarded.stop();
    }
  });
});
