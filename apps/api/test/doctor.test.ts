// @module-tag system

import { chmodSync } from "node:fs";
import { createServer, type Server } from "node:net";
import {
  createStoreEnv,
  createTempDir,
  createTestRedis,
  mountsUnder,
  pathWithout,
  runToExit,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";

/** `oah-api doctor` with this environment: its exit code and its lines. */
async function doctor(env: Record<string, string>, args: string[] = []) {
  const { code, output } = await runToExit("oah-api", { env, args: ["doctor", ...args] });
  return { code, lines: output.trim().split("\n") };
}

const line = (lines: string[], label: string) => lines.find((l) => l.slice(2).startsWith(label)) ?? "";

describe("oah-api doctor", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const dataDir = (mode = 0o755) => {
    const dir = createTempDir("oah-doctor-");
    chmodSync(dir.path, mode);
    cleanups.push(dir.remove);
    return dir.path;
  };

  it("passes on this machine, a private data directory included, and says what it found", async () => {
    const { code, lines } = await doctor({ OAH_DATA_DIR: dataDir(0o700), OAH_PORT: "0", OAH_WEB_PORT: "0" });
    // Without OAH_WORKSPACE_MAX_BYTES: a warning, with its fix, that does not fail the verdict.
    expect(lines.filter((l) => !l.startsWith("✔") && l !== "")).toEqual([
      expect.stringMatching(
        /^⚠ workspace quota \(OAH_WORKSPACE_MAX_BYTES\): none: a step may fill the disk of /,
      ),
      "    fix: set OAH_WORKSPACE_MAX_BYTES (oah as root), or give OAH_WORKSPACE_ROOT a file system of its own",
      "Everything this configuration needs works.",
    ]);
    expect(code).toBe(0);
    expect(line(lines, "Node.js")).toMatch(/^✔ Node\.js: v20\./);
    expect(line(lines, "bwrap")).toMatch(/^✔ bwrap .*bubblewrap \d/);
    expect(line(lines, "a trial command")).toMatch(
      /^✔ a trial command in the sandbox: ran as nobody in \/workspace, saw nothing of .*; network: egress only, not this host's loopback$/,
    );
    // This machine mounts cgroup v1's memory controller, and oah-api runs as root.
    expect(line(lines, "a cgroup per sandbox")).toBe(
      "✔ a cgroup per sandbox: cgroup v1 (memory, pids): memory ≤ 2147483648 bytes in all (OAH_STEP_MEMORY_BYTES), ≤ 258 processes",
    );
  });

  it("makes and mounts a trial workspace file system for OAH_WORKSPACE_MAX_BYTES, and leaves nothing mounted", async () => {
    const dir = dataDir();
    const { code, lines } = await doctor({
      OAH_DATA_DIR: dir,
      OAH_PORT: "0",
      OAH_WEB_PORT: "0",
      OAH_WORKSPACE_MAX_BYTES: "33554432",
    });
    expect(code).toBe(0);
    expect(line(lines, "workspace quota")).toBe(
      "✔ workspace quota (OAH_WORKSPACE_MAX_BYTES): each workspace a file system of its own of 33554432 bytes (ext4, loop-mounted at its directory): a trial one made and mounted",
    );
    expect(mountsUnder(dir)).toEqual([]);
  });

  it("fails without bubblewrap, naming the fix; passes when the configuration runs no commands", async () => {
    const path = pathWithout(["bwrap"]);
    cleanups.push(path.remove);
    const env = { OAH_DATA_DIR: dataDir(), OAH_PORT: "0", OAH_WEB_PORT: "0", PATH: path.path };
    const without = await doctor(env);
    expect(without.code).toBe(1);
    expect(line(without.lines, "bwrap")).toBe(
      "✘ bwrap (bubblewrap: the sandbox of commands): bubblewrap is not installed (bwrap not found on PATH)",
    );
    expect(without.lines[without.lines.indexOf(line(without.lines, "bwrap")) + 1]).toBe(
      "    fix: apt-get install -y bubblewrap",
    );
    const off = await doctor({ ...env, OAH_SHELL: "off" });
    expect(off.code).toBe(0);
    expect(line(off.lines, "bwrap")).toMatch(/^– bwrap /);
    expect(off.lines).toContain("    fix: apt-get install -y bubblewrap (not needed by this configuration)");
  });

  it("fails on a taken port, naming what to change", async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.close());
    const port = (server.address() as { port: number }).port;
    const { code, lines } = await doctor({ OAH_DATA_DIR: dataDir(), OAH_WEB_PORT: "0" }, [
      "--port",
      String(port),
    ]);
    expect(code).toBe(1);
    expect(line(lines, "API port")).toBe(`✘ API port: 127.0.0.1:${port} is not free (EADDRINUSE)`);
    expect(lines).toContain(
      `    fix: stop what listens on ${port} (ss -ltnp 'sport = :${port}'), or set OAH_PORT (or --port) to another port`,
    );
  });

  it("reaches the configured Redis and PostgreSQL with their versions, and fails on one that does not answer", async () => {
    const place = await createStoreEnv("postgres");
    cleanups.push(() => place.dispose());
    const redis = await createTestRedis();
    cleanups.push(() => redis.dispose());
    const env = { ...place.env, OAH_PORT: "0", OAH_WEB_PORT: "0", OAH_REDIS_URL: redis.url };
    const reached = await doctor(env, ["--api-only"]);
    expect(line(reached.lines, "Redis")).toMatch(/^✔ Redis: answers, version \d+\.\d+/);
    expect(line(reached.lines, "PostgreSQL")).toMatch(/^✔ PostgreSQL: answers, version \d+/);
    expect(reached.code).toBe(0);
    const lost = await doctor({ ...env, OAH_REDIS_URL: "redis://127.0.0.1:1" }, ["--api-only"]);
    expect(lost.code).toBe(1);
    expect(line(lost.lines, "Redis")).toMatch(/^✘ Redis: cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });

  it("reports a configuration that does not load as its first failure", async () => {
    const { code, lines } = await doctor({ OAH_DATA_DIR: dataDir(), OAH_WORKERS_MAX: "zero" });
    expect(code).toBe(1);
    expect(lines[0]).toMatch(/^✘ configuration: invalid configuration: OAH_WORKERS_MAX: /);
  });
});
