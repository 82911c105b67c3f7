import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { copyCheckout, pathWithout, REPO_ROOT, type TempDir } from "@oah/testing";
import { expect, test } from "@playwright/test";

/**
 * The front door, as a new user meets it: the built checkout in a private directory (mode 700,
 * as under root's home), `npm start` there as root, and the README's own example through the
 * API; then the same machine without bubblewrap.
 */
test.describe("npm start on a fresh machine", () => {
  test.describe.configure({ mode: "serial", timeout: 240_000 });
  let checkout: TempDir;
  let started: NpmStart | undefined;

  test.beforeAll(() => {
    checkout = copyCheckout();
  });
  test.afterEach(async () => {
    await started?.stop();
    started = undefined;
  });
  test.afterAll(() => checkout?.remove());

  test("as root in a mode-700 directory: it serves the README's shell example", async () => {
    expect(process.getuid?.()).toBe(0);
    started = await npmStart(checkout.path, {});
    const reply = bash(readmeExample("curl -s -X POST", started.apiPort));
    const { run } = JSON.parse(reply) as { run: { id: string; status: string } };
    expect(run.status).toBe("queued");
    const done = await waitForRun(started.apiPort, run.id);
    expect(done).toMatchObject({ status: "completed", output: { done: true } });
    // The README's reads, each as it is written there.
    const steps = JSON.parse(bash(readmeExample("/steps", started.apiPort, run.id))) as {
      items: { kind: string; output: { stdout: string } }[];
    };
    expect(steps.items.find((s) => s.kind === "tool")?.output.stdout).toBe("hello from demo\n");
    const events = JSON.parse(bash(readmeExample("/events", started.apiPort, run.id))) as {
      items: { type: string }[];
    };
    expect(events.items.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        "run.queued",
        "run.started",
        "tool.started",
        "tool.completed",
        "run.completed",
      ]),
    );
    const session = JSON.parse(
      bash(readmeExample("curl -s http://127.0.0.1:8787/api/v1/sessions/demo/runs", started.apiPort)),
    ) as {
      items: { id: string }[];
    };
    expect(session.items.map((r) => r.id)).toEqual([run.id]);
  });

  test("without bubblewrap: it comes up, runs what needs no command, refuses shell runs, and the console says why", async ({
    page,
  }) => {
    const path = pathWithout(["bwrap"]);
    try {
      started = await npmStart(checkout.path, { PATH: path.path });
      expect(started.output()).toMatch(
        /oah-api: commands of runs are unavailable on this host: bubblewrap is not installed/,
      );
      const api = `http://127.0.0.1:${started.apiPort}`;
      const submit = (steps: unknown[]) =>
        fetch(`${api}/api/v1/sessions/front-door/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: { steps } }),
        });
      const plain = await submit([{ type: "output", value: { done: true } }]);
      expect(plain.status).toBe(202);
      const { run } = (await plain.json()) as { run: { id: string } };
      expect(await waitForRun(started.apiPort, run.id)).toMatchObject({ status: "completed" });
      const shell = await submit([{ type: "shell", command: "echo hi" }]);
      expect(shell.status).toBe(400);
      const refusal = (await shell.json()) as { error: { code: string; message: string } };
      expect(refusal.error.code).toBe("commands_unavailable");
      expect(refusal.error.message).toMatch(/bubblewrap is not installed.*apt-get install -y bubblewrap/);

      await page.goto(`http://127.0.0.1:${started.webPort}/storage`);
      const banner = page.getByTestId("commands-banner");
      await expect(banner).toBeVisible();
      await expect(banner).toContainText("Commands of runs are unavailable");
      await expect(banner).toContainText("bubblewrap is not installed");
      await expect(banner).toContainText("apt-get install -y bubblewrap");
    } finally {
      path.remove();
    }
  });
});

interface NpmStart {
  apiPort: number;
  webPort: number;
  output(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm start` in `dir`, on ports of its own, until it prints both addresses. */
async function npmStart(dir: string, env: Record<string, string>): Promise<NpmStart> {
  const [apiPort, webPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, OAH_PORT: String(apiPort), OAH_WEB_PORT: String(webPort), ...env },
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 180_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/ {2}console {3}http:\/\//.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    exited.then(() => reject(new Error(`npm start exited:\n${output}`)));
  });
  return {
    apiPort,
    webPort,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, "SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // all gone
      }
    },
  };
}

/**
 * A command of the README's "Try it" block, as written there (continuation lines joined,
 * the comment dropped), aimed at `port` and at `runId` where it names `run_01…`.
 */
function readmeExample(containing: string, port: number, runId = ""): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const block = /## Try it\n+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Try it"');
  const commands = block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.startsWith("curl"))
    .map((line) => line.replace(/\s+# .*$/, ""));
  const command = commands.find((c) => c.includes(containing));
  if (!command) throw new Error(`README.md's example has no command with "${containing}"`);
  return command.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`).replaceAll("run_01…", runId);
}

const bash = (command: string): string => execFileSync("bash", ["-c", command], { encoding: "utf8" });

async function waitForRun(port: number, runId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { run } = (await (await fetch(`http://127.0.0.1:${port}/api/v1/runs/${runId}`)).json()) as {
      run: Record<string, unknown>;
    };
    if (["completed", "failed", "cancelled", "timed_out"].includes(String(run.status))) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
