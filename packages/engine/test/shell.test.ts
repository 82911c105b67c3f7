import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "@oah/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runShell, type ShellOptions } from "../src";

const cwd = mkdtempSync(join(tmpdir(), "oah-shell-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const options = (over: Partial<ShellOptions> = {}): ShellOptions => ({
  cwd,
  env: { PATH: process.env.PATH, SECRET_FROM_TEST: undefined },
  timeoutMs: 10_000,
  signal: new AbortController().signal,
  maxOutputBytes: 1024,
  killGraceMs: 1_000,
  ...over,
});

describe("runShell", () => {
  it("runs in the given directory with only the given environment", async () => {
    process.env.OAH_API_TOKEN_LEAK_CHECK = "leak";
    const r = await runShell('pwd; echo "[$OAH_API_TOKEN_LEAK_CHECK]"; exit 7', options());
    expect(r).toMatchObject({ exitCode: 7, stdout: `${cwd}\n[]\n`, timedOut: false, aborted: false });
  });

  it("keeps the first bytes of the output and counts the rest", async () => {
    const r = await runShell("yes y | head -c 5000; echo err >&2", options({ maxOutputBytes: 100 }));
    expect(r.stdout).toBe("y\n".repeat(50));
    expect(r.stderr).toBe("err\n");
    expect(r.truncatedBytes).toBe(4900);
  });

  it("on abort stops the command and what it started, grandchildren included", async () => {
    const controller = new AbortController();
    const pending = runShell(
      "sh -c 'sleep 100 & echo $! > gc.pid; wait' & sleep 100 & wait",
      options({ signal: controller.signal }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const grandchild = Number(readFileSync(join(cwd, "gc.pid"), "utf8"));
    expect(processAlive(grandchild)).toBe(true);
    const asked = Date.now();
    controller.abort();
    const r = await pending;
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(r.aborted).toBe(true);
    expect(processAlive(grandchild)).toBe(false);
  });

  it("SIGKILLs a group that ignores SIGTERM after the grace period", async () => {
    const r = await runShell(
      "trap '' TERM; sleep 0.05; echo $$ > trap.pid; sleep 100",
      options({ timeoutMs: 300, killGraceMs: 300 }),
    );
    expect(r.timedOut).toBe(true);
    const pid = Number(readFileSync(join(cwd, "trap.pid"), "utf8"));
    expect(processAlive(pid)).toBe(false);
    expect(r.durationMs).toBeLessThan(2_000);
  });

  it("stops what a finished command left running in its group", async () => {
    const r = await runShell("sleep 100 & echo $! > left.pid", options());
    expect(r.exitCode).toBe(0);
    const pid = Number(readFileSync(join(cwd, "left.pid"), "utf8"));
    expect(processAlive(pid)).toBe(false);
  });
});
