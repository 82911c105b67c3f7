// @module-tag system

import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Run, SubmitRunRequest } from "@oah/contract";
import {
  createStoreEnv,
  createTempDir,
  createTestRedis,
  forkLoop,
  mountsUnder,
  OUTSIDE_TMP,
  pathWithout,
  runToExit,
  sleepers,
  sleepersGone,
  startOah,
  uniqueSleep,
  waitFor,
  workspaceDir,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

const TOKEN = "isolation-test-token-0123456789abcdef";
const MODEL_KEY = "sk-isolation-model-key-should-never-leak";

async function stepOutput(t: ApiUnderTest, run: Run): Promise<{ stdout: string; stderr: string }> {
  const steps = await t.oah.steps(run.id);
  return steps.find((s) => s.kind === "tool" && s.name === "shell")!.output as {
    stdout: string;
    stderr: string;
  };
}

/** A run of each kind that executes a command: a shell step, a hook step, the agent with its shell tool. */
const COMMAND_RUNS = [
  { input: { steps: [{ type: "shell", command: "echo hi" }] } },
  {
    input: {
      steps: [
        { type: "output", value: 1 },
        { type: "hook", command: "echo hi" },
      ],
    },
  },
  { executor: "agent", input: { prompt: "list the files", tools: { shell: true } } },
];

/**
 * Every kind of run with a command is refused at submission with `code` (one by one over HTTP, in
 * a batch, over tRPC) and nothing is written; a run without commands completes as ever.
 */
async function expectCommandRunsRefused(t: ApiUnderTest, code: string, message: RegExp): Promise<void> {
  const session = `refused-${code}`;
  for (const body of COMMAND_RUNS) {
    const res = await t.client.post<{ error: { code: string; message: string } }>(
      `/api/v1/sessions/${session}/runs`,
      body,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toMatch(message);
  }
  const batch = await t.client.post("/api/v1/runs/batch", {
    runs: [{ sessionId: session, ...COMMAND_RUNS[0] }],
  });
  expect(batch.status).toBe(400);
  expect(JSON.stringify(batch.body)).toContain(code);
  const trpc = await t.client.post("/trpc/runs.submit", { sessionId: session, ...COMMAND_RUNS[0] });
  expect(trpc.status).toBe(400);
  expect(JSON.stringify(trpc.body)).toContain(code);
  expect((await t.oah.listRuns(session)).items).toEqual([]);
  const overview = (await t.client.get<{ statusCounts: Record<string, number> }>("/api/v1/storage/overview"))
    .body;
  expect(Object.values(overview.statusCounts).reduce((a, b) => a + b, 0)).toBe(0);
  const plain = (
    await t.oah.submit(session, {
      input: {
        steps: [
          { type: "sleep", ms: 1 },
          { type: "output", value: 2 },
        ],
      },
    })
  ).run;
  expect(await t.oah.wait(plain.id)).toMatchObject({ status: "completed", output: 2 });
}

/**
 * A run with a command accepted by a host that runs commands, which is then killed and restarted
 * with `env`: the run fails with `code`, and nothing of its command ever runs.
 */
async function expectAcceptedCommandRunFails(
  env: Record<string, string>,
  code: string,
  cleanups: (() => unknown)[],
): Promise<Run> {
  const t = await startApi("sqlite", { OAH_WORKERS_MIN: "0", OAH_WORKERS_MAX: "1" });
  cleanups.push(() => t.dispose());
  const blocker = (await t.oah.submit("before", { input: { steps: [{ type: "sleep", ms: 60_000 }] } })).run;
  await t.oah.wait(blocker.id, { until: ["running"] });
  const marker = uniqueSleep();
  const accepted = (
    await t.oah.submit("before", { input: { steps: [{ type: "shell", command: `sleep ${marker}` }] } })
  ).run;
  await t.api.stop("SIGKILL");
  Object.assign(t.env, env);
  await t.restart();
  const ended = await t.oah.wait(accepted.id);
  expect(ended).toMatchObject({ status: "failed", errorCode: code });
  expect(sleepers(marker)).toEqual([]);
  return ended;
}

describe("commands of runs on oah-api (embedded, SQLite)", () => {
  let t: ApiUnderTest | undefined;
  const cleanups: (() => void)[] = [];
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  const workspace = (id: string) => workspaceDir(t!.env, id);

  it("a step sees nothing of its host (environment, store, other workspaces) and writes only its workspace", async () => {
    // A data directory outside /tmp, which the jail replaces anyway, as a host's would be.
    const dataDir = createTempDir("oah-isolation-", OUTSIDE_TMP);
    cleanups.push(dataDir.remove);
    t = await startApi("sqlite", {
      OAH_DATA_DIR: dataDir.path,
      OAH_API_TOKEN: TOKEN,
      OAH_MODEL_API_KEY: MODEL_KEY,
    });
    const warmup = (
      await t.oah.submit("alice", {
        input: { steps: [{ type: "shell", command: "echo secret-of-alice > secret.txt" }] },
        workspaceId: "alice",
      })
    ).run;
    await t.oah.wait(warmup.id);
    const data = join(dataDir.path, ".openharness", "data");
    const apiPid = t.api.child.pid!;
    const run = (
      await t.oah.submit("bob", {
        input: {
          steps: [
            {
              type: "shell",
              command: [
                "id -un",
                `cat /proc/${apiPid}/environ`,
                "tr '\\0' '\\n' < /proc/1/environ | grep -c OAH_API_TOKEN",
                "env | grep -c -E 'OAH_(API_TOKEN|MODEL_API_KEY|DATABASE_URL)'",
                `ls ${data}`,
                "cat ../alice/secret.txt",
                `echo x > ${data}/planted`,
                "echo x > /etc/planted-by-oah",
                "echo mine > bob.txt && echo wrote-bob",
              ].join("; "),
              allowFailure: true,
            },
          ],
        },
        workspaceId: "bob",
      })
    ).run;
    expect((await t.oah.wait(run.id)).status).toBe("completed");
    const { stdout, stderr } = await stepOutput(t, run);
    expect(stdout).toBe("nobody\n0\n0\nwrote-bob\n");
    expect(`${stdout}${stderr}`).not.toContain(TOKEN);
    expect(`${stdout}${stderr}`).not.toContain(MODEL_KEY);
    expect(`${stdout}${stderr}`).not.toContain("secret-of-alice");
    expect(existsSync(join(data, "planted"))).toBe(false);
    expect(existsSync("/etc/planted-by-oah")).toBe(false);
    expect(readFileSync(join(workspace("bob"), "bob.txt"), "utf8")).toBe("mine\n");
  });

  it("refuses a workspace whose symlink leads out of the workspace root (workspace_invalid), running nothing", async () => {
    t = await startApi("sqlite");
    // What a step of the old unconfined shell could plant, or a careless operator.
    symlinkSync("/etc", workspace("etcws"));
    const run = (
      await t.oah.submit("escape", {
        input: { steps: [{ type: "shell", command: "touch planted-by-oah" }] },
        workspaceId: "etcws",
      })
    ).run;
    const ended = await t.oah.wait(run.id);
    expect(ended).toMatchObject({ status: "failed", errorCode: "workspace_invalid" });
    expect(ended.errorMessage).toMatch(/leads to \/etc, which is not a directory under the workspace root/);
    expect(existsSync("/etc/planted-by-oah")).toBe(false);
    // And from inside a jail, the workspace root cannot be reached to plant one.
    const planter = (
      await t.oah.submit("planter", {
        input: { steps: [{ type: "shell", command: "ln -s /etc ../etcws2; echo done", allowFailure: true }] },
      })
    ).run;
    expect((await t.oah.wait(planter.id)).status).toBe("completed");
    expect(existsSync(workspace("etcws2"))).toBe(false);
  });

  it("stops a 500-process fork loop at the process limit while other sessions keep completing", async () => {
    t = await startApi("sqlite", { OAH_STEP_MAX_PROCS: "64", OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4" });
    const marker = uniqueSleep();
    const bomb = (
      await t.oah.submit("bomb", { input: { steps: [{ type: "shell", command: forkLoop(marker, 3, 9) }] } })
    ).run;
    await waitFor("the fork loop to hit its limit", async () => sleepers(marker).length > 56, 10_000);
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t!.oah
          .submit(`neighbour-${i}`, {
            input: {
              steps: [{ type: "shell", command: "for i in $(seq 10); do sleep 0.1 & done; wait; echo ok" }],
            },
          })
          .then((r) => r.run),
      ),
    );
    const ended = await Promise.all(others.map((r) => t!.oah.wait(r.id)));
    expect(ended.map((r) => r.status)).toEqual(Array(6).fill("completed"));
    expect(sleepers(marker).length).toBeLessThan(64);
    expect(await t.oah.wait(bomb.id)).toMatchObject({
      status: "failed",
      errorCode: "tool_failed",
    });
    expect(sleepers(marker)).toEqual([]);
  });

  it("after kill -9 the step dies with its host, and the run's re-execution after the restart never overlaps it", async () => {
    t = await startApi("sqlite", { OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running" });
    const marker = uniqueSleep();
    // The first execution also leaves children that escape its process group and session.
    const escapes = `setsid sleep ${marker} & setsid -f sleep ${marker}; nohup sleep ${marker} >/dev/null 2>&1 & (sleep ${marker} &)`;
    const run = (
      await t.oah.submit("crash", {
        input: {
          steps: [
            {
              type: "shell",
              command: `if [ ! -e first ]; then touch first; echo "start A" >> marks; ${escapes}; sleep ${marker}; echo "end A" >> marks; else echo "start B" >> marks; sleep 0.5; echo "end B" >> marks; fi`,
            },
            { type: "output", value: "done" },
          ],
        },
      })
    ).run;
    await waitFor("the first execution's processes", async () => sleepers(marker).length === 5);
    await t.api.stop("SIGKILL");
    expect(await sleepersGone(marker, 1_000)).toBe(true);
    const goneAt = Date.now();
    await t.restart();
    const ended = await t.oah.wait(run.id);
    expect(ended).toMatchObject({ status: "completed", output: "done", attempt: 2 });
    expect(Date.parse(ended.startedAt!)).toBeGreaterThan(goneAt);
    expect(readFileSync(join(workspace("default"), "marks"), "utf8")).toBe("start A\nstart B\nend B\n");
  });
});

describe("what a step cannot reach or exhaust (oah-api, SQLite)", () => {
  let t: ApiUnderTest | undefined;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const shell = (command: string): SubmitRunRequest => ({
    input: { steps: [{ type: "shell", command, allowFailure: true }] },
  });

  it("a step sees an empty /run and /var/run, whatever the network: the host's PostgreSQL socket is out of its reach", async () => {
    // This machine's PostgreSQL listens on /run/postgresql; the host's own network is the widest setting.
    expect(readdirSync("/run/postgresql")).toContain(".s.PGSQL.5432");
    t = await startApi("sqlite", { OAH_STEP_NETWORK: "host" });
    const run = (
      await t.oah.submit(
        "run-dir",
        shell(
          "ls -A /run /var/run/ | grep -c -v -e '^$' -e ':$'; psql -h /run/postgresql -U postgres -d postgres -Atc 'select 42'",
        ),
      )
    ).run;
    expect((await t.oah.wait(run.id)).status).toBe("completed");
    const { stdout, stderr } = await stepOutput(t, run);
    expect(stdout).toBe("0\n");
    expect(stderr).toMatch(/\/run\/postgresql\/\.s\.PGSQL\.5432.*No such file or directory/);
  });

  it("a descriptor oah-api inherited open on a root-only file (fd 200) does not reach a step", async () => {
    const dir = createTempDir("oah-secret-", OUTSIDE_TMP);
    cleanups.push(dir.remove);
    const secret = join(dir.path, "secret");
    writeFileSync(secret, "root-only-secret\n", { mode: 0o600 });
    const fd = openSync(secret, "r");
    cleanups.push(() => closeSync(fd));
    t = await startApi("sqlite", {}, { fds: { 200: fd } });
    // oah-api holds it, as `oah-api 200</root/secret` would.
    expect(readlinkSync(`/proc/${t.api.child.pid}/fd/200`)).toBe(secret);
    const run = (
      await t.oah.submit(
        "fd",
        shell("bash -c 'cat <&200'; cat /proc/self/fd/200; ls /proc/self/fd | grep -c -x 200"),
      )
    ).run;
    expect((await t.oah.wait(run.id)).status).toBe("completed");
    const { stdout, stderr } = await stepOutput(t, run);
    expect(`${stdout}${stderr}`).not.toContain("root-only-secret");
    expect(stdout).toBe("0\n");
    expect(stderr).toMatch(/200: Bad file descriptor/);
  });

  it("a 900 kB tool result reaches the next shell step by file; a step whose command cannot start ends, failing its run", async () => {
    t = await startApi("sqlite");
    const run = (
      await t.oah.submit("big-result", {
        input: {
          steps: [
            { type: "wait_tool", name: "big" },
            {
              type: "shell",
              command:
                'wc -c < "$OAH_TOOL_RESULTS_FILE"; tail -c 5 "$OAH_TOOL_RESULTS_FILE"; echo; [ -n "$OAH_TOOL_RESULTS" ] || echo "not inline"',
            },
          ],
        },
      })
    ).run;
    await t.oah.wait(run.id, { until: ["waiting_tool"] });
    const output = "x".repeat(900_000);
    await t.oah.submitToolResult(run.id, "big", output);
    expect(await t.oah.wait(run.id)).toMatchObject({ status: "completed" });
    const { stdout } = await stepOutput(t, run);
    expect(stdout).toBe(`${JSON.stringify({ big: output }).length}\nxxx"}\nnot inline\n`);

    // 65,536 characters, 196,608 bytes in UTF-8: more than one argument of a program may hold.
    const unstartable = (await t.oah.submit("too-long", shell("€".repeat(65_536)))).run;
    const ended = await t.oah.wait(unstartable.id);
    expect(ended).toMatchObject({ status: "failed", errorCode: "tool_failed" });
    expect(ended.errorMessage).toMatch(/could not start: spawn E2BIG/);
    const steps = await t.oah.steps(unstartable.id);
    expect(steps.map((s) => [s.kind, s.status])).toEqual([["tool", "failed"]]);
    expect(steps[0]).toMatchObject({ errorCode: "tool_failed" });
  });

  it("on a full disk a submission answers 503 disk_full and writes nothing; the workspace quota stops a step at its bound", async () => {
    const place = await createStoreEnv("sqlite");
    cleanups.push(() => place.dispose());
    // A small disk of the test's own as the data directory: the store and the workspaces on it.
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m,mode=0711", "oah-test-disk", place.dataDir]);
    expect(mountsUnder(place.dataDir)).toEqual([place.dataDir]);
    t = await startApi("sqlite", { ...place.env, OAH_WORKSPACE_MAX_BYTES: String(24 * 1_048_576) });

    // The quota: a step that writes 40 MB into its 24 MiB workspace is stopped at the bound.
    const writer = (
      await t.oah.submit(
        "writer",
        shell("head -c 40000000 /dev/zero > big; echo $?; df -k --output=size . | tail -1"),
      )
    ).run;
    expect((await t.oah.wait(writer.id)).status).toBe("completed");
    const written = await stepOutput(t, writer);
    expect(written.stderr).toMatch(/No space left on device/);
    const [exit, sizeKb] = written.stdout.trim().split("\n").map(Number);
    expect(exit).toBe(1);
    expect(sizeKb).toBeLessThanOrEqual(24 * 1024);
    const workspace = join(place.dataDir, ".openharness", "workspaces", "default");
    expect(mountsUnder(workspace)).toEqual([workspace]);
    expect(statfsSync(place.dataDir).bfree).toBeGreaterThan(0);

    // Then the disk fills (here, the test fills it): submissions answer 503 disk_full.
    const filler = join(place.dataDir, "filler");
    const out = openSync(filler, "w");
    const chunk = Buffer.alloc(1_048_576, 1);
    try {
      for (;;) writeSync(out, chunk);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    } finally {
      closeSync(out);
    }
    const body: SubmitRunRequest = { input: { steps: [{ type: "output", value: "y".repeat(200_000) }] } };
    let accepted = 0;
    let refused: { status: number; body: { error?: { code: string } } } | undefined;
    while (!refused && accepted < 100) {
      const res = await t.client.post<{ error?: { code: string } }>("/api/v1/sessions/full/runs", body);
      if (res.status === 202) accepted++;
      else refused = res;
    }
    expect(refused).toMatchObject({ status: 503, body: { error: { code: "disk_full" } } });
    // Room again: the next submission is accepted, numbered right after the last accepted one.
    rmSync(filler);
    const after = (await t.oah.submit("full", body)).run;
    expect(after.seq).toBe(accepted + 1);
    const runs = (await t.oah.listRuns("full")).items;
    expect(runs.map((r) => r.seq)).toEqual(Array.from({ length: accepted + 1 }, (_, i) => i + 1));
  });
});

describe("OAH_SHELL=off", () => {
  let t: ApiUnderTest | undefined;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("refuses shell steps, hook steps and the agent's shell tool at submission with 400 shell_disabled, writing nothing", async () => {
    t = await startApi("sqlite", { OAH_SHELL: "off" });
    await expectCommandRunsRefused(t, "shell_disabled", /OAH_SHELL=off/);
  });

  it("a host with commands off never executes one that was accepted before", async () => {
    await expectAcceptedCommandRunFails({ OAH_SHELL: "off" }, "shell_disabled", cleanups);
  });
});

describe("a host where the step jail cannot be made", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** An embedded oah-api on a machine without bubblewrap (or with one that fails as `bwrap` says). */
  async function withoutJail(env: Record<string, string> = {}, bwrap?: string): Promise<ApiUnderTest> {
    const path = pathWithout(["bwrap"]);
    cleanups.push(path.remove);
    if (bwrap) writeFileSync(join(path.path, "bwrap"), bwrap, { mode: 0o755 });
    const t = await startApi("sqlite", { PATH: path.path, ...env });
    cleanups.push(() => t.dispose());
    return t;
  }

  it("the embedded default starts without bubblewrap, says why once, and refuses only runs with commands (400 commands_unavailable)", async () => {
    const t = await withoutJail({ OAH_STEP_NETWORK: "off" });
    const said = t.api.output();
    expect(said).toMatch(
      /oah-api: commands of runs are unavailable on this host: bubblewrap is not installed \(bwrap not found on PATH\)\. To fix: apt-get install -y bubblewrap\. Runs without commands work/,
    );
    const ready = await t.client.get<{ status: string; commands: { available: boolean; reason: string } }>(
      "/readyz",
    );
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: "ready",
      commands: { available: false, code: "commands_unavailable" },
    });
    expect(ready.body.commands.reason).toMatch(/bubblewrap is not installed.*apt-get install -y bubblewrap/);
    const metrics = await fetch(`${t.api.url}/metrics`).then((r) => r.text());
    expect(metrics).toContain('oah_commands_available{reason="commands_unavailable"} 0');
    const pool = await t.oah.pool();
    expect(pool.hosts[0]!.commands).toMatchObject({ available: false, code: "commands_unavailable" });

    await expectCommandRunsRefused(
      t,
      "commands_unavailable",
      /bubblewrap is not installed.*apt-get install -y bubblewrap/,
    );
  });

  it("names the cause when bubblewrap is there but may not make namespaces", async () => {
    const t = await withoutJail(
      {},
      "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    );
    const ready = await t.client.get<{ commands: { available: boolean; reason: string } }>("/readyz");
    expect(ready.body.commands.available).toBe(false);
    expect(ready.body.commands.reason, ready.body.commands.reason).toMatch(
      /No permissions to create new namespace/,
    );
  });

  it("a run with a command accepted before fails with commands_unavailable, running nothing", async () => {
    const path = pathWithout(["bwrap"]);
    cleanups.push(path.remove);
    const ended = await expectAcceptedCommandRunFails({ PATH: path.path }, "commands_unavailable", cleanups);
    expect(ended.errorMessage).toMatch(/bubblewrap is not installed/);
  });

  it("refuses to start where the configuration asks for commands it cannot run: command hooks, an unknown jail user", async () => {
    const path = pathWithout(["bwrap"]);
    cleanups.push(path.remove);
    const dir = createTempDir();
    cleanups.push(dir.remove);
    const hooks = await runToExit("oah-api", {
      env: {
        OAH_DATA_DIR: dir.path,
        PATH: path.path,
        OAH_HOOKS: JSON.stringify([{ on: "run.started", command: "echo hook" }]),
      },
      args: ["--port", "0"],
    });
    expect(hooks.code).toBe(1);
    expect(hooks.output).toMatch(/bubblewrap is not installed.*OAH_HOOKS has commands, which need it/);
    const unknownUser = await runToExit("oah-api", {
      env: { OAH_DATA_DIR: dir.path, OAH_SANDBOX_USER: "no-such-user-oah" },
      args: ["--port", "0"],
    });
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.output).toMatch(/OAH_SANDBOX_USER no-such-user-oah is not a user of this system/);
  });

  it("a worker host (oah-sandbox) refuses to start without its sandbox, unless OAH_SHELL=off says so", async () => {
    const path = pathWithout(["bwrap"]);
    cleanups.push(path.remove);
    const place = await createStoreEnv("postgres");
    cleanups.push(() => place.dispose());
    const redis = await createTestRedis();
    cleanups.push(() => redis.dispose());
    const env = { ...place.env, OAH_REDIS_URL: redis.url, OAH_REDIS_PREFIX: redis.prefix, PATH: path.path };
    const refused = await runToExit("oah-sandbox", { env, args: ["--port", "0"] });
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/cannot be sandboxed on this host: bubblewrap is not installed/);
    expect(refused.output).toMatch(/OAH_SHELL=off/);
    const off = await startOah("oah-sandbox", { env: { ...env, OAH_SHELL: "off" }, args: ["--port", "0"] });
    cleanups.push(() => off.stop("SIGKILL"));
    const ready = await fetch(`${off.url}/readyz`).then((r) => r.json());
    expect(ready).toMatchObject({ status: "ready", commands: { available: false, code: "shell_disabled" } });
  });
});
