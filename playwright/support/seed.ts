import { createClient, type OahClient, type Run, type SubmitRunRequest } from "@oah/client";
import {
  crashAsked,
  crashingStep,
  isTerminal,
  type OahProcess,
  type SplitDeployment,
  waitFor,
} from "@oah/testing";
import type { E2EState } from "./state";

/** Short lock, heartbeat, staleness and scan periods, so that recovery acts within seconds. */
export const FAST_ENV = {
  OAH_SESSION_LOCK_TTL_MS: "1500",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "300",
  OAH_STALE_RUN_AFTER_MS: "2000",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "300",
  OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS: "2",
  OAH_WORKERS_MIN: "1",
  OAH_WORKERS_MAX: "4",
  OAH_POOL_SCALE_DOWN_COOLDOWN_MS: "3000",
};

/** Sandboxes kept alive while runs kill the ones they land on. */
const SANDBOXES = 2;

const alive = (d: SplitDeployment) =>
  d.sandboxes.filter((s) => s.child.exitCode === null && s.child.signalCode === null);

/** Replaces sandboxes that died, so that recovery (which runs on worker hosts) keeps going. */
async function keepSandboxes(d: SplitDeployment): Promise<void> {
  const missing = SANDBOXES - alive(d).length;
  for (let i = 0; i < missing; i++) await d.addSandbox();
}

/** Cordons these sandboxes (or lifts their cordon), and waits until each reports the state. */
async function setCordoned(c: OahClient, sandboxes: readonly OahProcess[], cordoned: boolean): Promise<void> {
  const hostIds = async () =>
    (await c.pool()).hosts.filter((h) => sandboxes.some((s) => h.hostId.includes(`-${s.child.pid}-`)));
  for (const host of await hostIds()) await (cordoned ? c.cordon(host.hostId) : c.uncordon(host.hostId));
  const state = cordoned ? "cordoned" : "active";
  await waitFor(`the sandboxes to be ${state}`, async () => {
    const hosts = await hostIds();
    return hosts.length === sandboxes.length && hosts.every((h) => h.state === state);
  });
}

/**
 * Real runs through the real engine: completed, failed (tool failure, executor failure, tool
 * timeout), timed out, cancelled, requeued by recovery, quarantined by recovery after their
 * sandboxes were killed, and parked. Nothing is written to the database by hand.
 */
export async function seed(d: SplitDeployment): Promise<E2EState["runs"]> {
  const c = createClient({ baseUrl: d.api.url, token: d.env.OAH_API_TOKEN });
  type Steps = Extract<SubmitRunRequest, { executor?: "script" }>["input"]["steps"];
  const submit = async (
    sessionId: string,
    steps: Steps,
    extra: { workspaceId?: string; timeoutMs?: number } = {},
  ) => (await c.submit(sessionId, { input: { steps }, ...extra })).run;

  // A run waiting for a client tool on a sandbox that holds its waits (OAH_WAIT_MODE=hold) when
  // that sandbox dies: recovery requeues it into the same wait, from the checkpoint its wait left
  // (docs/spec.md §7). The sandboxes that park their waits (the default) are cordoned meanwhile,
  // so that the holding one takes it.
  const parking = alive(d);
  await d.addSandbox({ OAH_WAIT_MODE: "hold" });
  await setCordoned(c, parking, true);
  const waiting = await submit(
    "approvals-17",
    [
      { type: "shell", command: "echo 'draft ready'" },
      { type: "wait_tool", name: "approve" },
    ],
    { workspaceId: "approvals" },
  );
  await c.wait(waiting.id, { until: ["waiting_tool"], timeoutMs: 30_000 });
  await setCordoned(c, parking, false);

  // Runs that kill every sandbox they land on until recovery gives up on them (max attempts 2).
  // Runs whose sandboxes crash (killed from outside) on each execution until recovery gives up on them.
  const killerA = await submit("import-batch-a", [crashingStep(3), { type: "output", value: "survived" }], {
    workspaceId: "killer-a",
  });
  const killerB = await submit("import-batch-b", [crashingStep(3), { type: "output", value: "survived" }], {
    workspaceId: "killer-b",
  });
  // Two runs of one session and workspace (they share its crash counter, one after the other):
  // six crashing executions quarantine both, and they succeed once requeued.
  // A run whose command must not run twice unless a person decides (onInterrupt: fail), in flight
  // when its sandbox dies: quarantined with step_interrupted (docs/spec.md §7). Nobody requeues it.
  const interrupted = await submit(
    "payments-capture",
    [
      { ...crashingStep(1), onInterrupt: "fail" },
      { type: "output", value: "captured" },
    ],
    { workspaceId: "payments" },
  );
  const deadLetters: Run[] = [];
  for (let i = 0; i < 2; i++)
    deadLetters.push(
      await submit("nightly-import-7", [crashingStep(6), { type: "output", value: "imported" }], {
        workspaceId: "nightly-import",
      }),
    );
  /** Kills the sandbox of each run that asks to crash, until `settled`. */
  const crashUntil = (
    what: string,
    crashes: { run: Run; workspaceId: string }[],
    settled: () => Promise<boolean>,
  ) =>
    waitFor(
      what,
      async () => {
        for (const { run, workspaceId } of crashes) await crashAsked(d, run.id, workspaceId);
        if (await settled()) return true;
        await keepSandboxes(d);
        return false;
      },
      90_000,
      100,
    );
  await crashUntil(
    "the killer runs to be quarantined",
    [
      { run: killerA, workspaceId: "killer-a" },
      { run: killerB, workspaceId: "killer-b" },
      ...deadLetters.map((run) => ({ run, workspaceId: "nightly-import" })),
      { run: interrupted, workspaceId: "payments" },
    ],
    async () => {
      const runs = await Promise.all([killerA, killerB, ...deadLetters, interrupted].map((r) => c.get(r.id)));
      return runs.every((r) => r.recoveryState === "quarantined");
    },
  );
  // One whose sandbox crashes once: recovery requeues it and it completes. After the killers,
  // so that none of their crashes takes its second attempt down too.
  const flaky = await submit("nightly-report", [crashingStep(1), { type: "output", value: { rows: 1284 } }], {
    workspaceId: "flaky",
  });
  await crashUntil("the flaky run to end", [{ run: flaky, workspaceId: "flaky" }], async () =>
    isTerminal(await c.get(flaky.id)),
  );
  // Durable runs, each alone so that no other run's crash takes one of its attempts down: one
  // whose sandbox crashes once after two completed steps (its second attempt resumes after them)…
  const durable = await submit(
    "nightly-backup",
    [
      { type: "shell", command: "echo 'dumped 3 tables'" },
      { type: "shell", command: "echo 'compressed the dump'" },
      crashingStep(1),
      { type: "output", value: "backed up" },
    ],
    { workspaceId: "durable" },
  );
  await crashUntil("the durable run to end", [{ run: durable, workspaceId: "durable" }], async () =>
    isTerminal(await c.get(durable.id)),
  );
  // …and one whose crashes come after a completed step, so that each later attempt resumes after
  // it (docs/spec.md §7) until recovery gives up on it: quarantined with its checkpoints.
  const durableQuarantined = await submit(
    "archive-rotate",
    [
      { type: "shell", command: "echo 'listed 12 archives'" },
      crashingStep(3),
      { type: "output", value: "rotated" },
    ],
    { workspaceId: "durable-quarantined" },
  );
  await crashUntil(
    "the durable run to be quarantined",
    [{ run: durableQuarantined, workspaceId: "durable-quarantined" }],
    async () => (await c.get(durableQuarantined.id)).recoveryState === "quarantined",
  );

  // If the waiting run's sandbox survived the killers, kill it: recovery must put the run back
  // into its wait, where a parking sandbox parks it; then its result comes and it completes.
  let w = await c.get(waiting.id);
  const holder = alive(d).find((s) => w.workerId?.includes(`-${s.child.pid}-`));
  if (w.status === "waiting_tool" && holder) {
    holder.child.kill("SIGKILL");
    await holder.exited;
    await keepSandboxes(d);
  }
  await waitFor(
    "the waiting run to be requeued into its wait",
    async () => {
      const run = await c.get(waiting.id);
      return run.recoveryState === "requeued" && run.status === "waiting_tool" && run.workerId === null;
    },
    30_000,
  );
  await c.submitToolResult(waiting.id, "approve", { approved: true });
  w = await c.wait(waiting.id, { timeoutMs: 30_000 });
  await keepSandboxes(d);

  // A run parked waiting for its approval, on a sandbox that parks its waits: it holds no slot.
  const parked = await submit(
    "approvals-18",
    [
      { type: "shell", command: "echo 'second draft ready'" },
      { type: "wait_tool", name: "approve" },
    ],
    { workspaceId: "approvals" },
  );
  await waitFor(
    "the approval run to park",
    async () => (await c.get(parked.id)).metadata.parked === true,
    30_000,
  );

  // Ordinary traffic: completed runs over a few sessions, in waves so that the pool has work to size.
  const completed: Run[] = [];
  for (let wave = 0; wave < 6; wave++) {
    const batch = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        submit(`checkout-${n}`, [
          { type: "shell", command: `echo "order ${wave * 4 + n}"; sleep 0.${2 + n}` },
          { type: "output", value: { order: wave * 4 + n, ok: true } },
        ]),
      ),
    );
    completed.push(...batch);
  }
  const plainFailed = await submit("etl-daily", [
    { type: "shell", command: "echo 'loading'; echo 'bad row 17' >&2; exit 3" },
  ]);
  const executorFailed = await submit("webhook-sync", [
    { type: "fail", code: "executor_failed", message: "upstream answered 502" },
  ]);
  const toolTimedOut = await submit("etl-hourly", [{ type: "shell", command: "sleep 5", timeoutMs: 300 }]);
  const timedOut = await Promise.all([
    submit("crawler-eu", [{ type: "sleep", ms: 5000 }], { timeoutMs: 400 }),
    submit("crawler-us", [{ type: "sleep", ms: 5000 }], { timeoutMs: 500 }),
  ]);
  const toCancel = await submit("backfill-2024", [{ type: "sleep", ms: 30_000 }]);
  await c.wait(toCancel.id, { until: ["running"], timeoutMs: 30_000 });
  await c.cancel(toCancel.id);

  const all = [...completed, plainFailed, executorFailed, toolTimedOut, ...timedOut, toCancel];
  const ended = await Promise.all(all.map((r) => c.wait(r.id, { timeoutMs: 30_000 })));
  const expect = (run: Run, status: string) => {
    if (run.status !== status)
      throw new Error(
        `seed: ${run.id} ended ${run.status} (${run.errorCode}: ${run.errorMessage}, attempt ${run.attempt}), expected ${status}`,
      );
  };
  for (const r of ended.slice(0, completed.length)) expect(r, "completed");
  expect(ended[completed.length]!, "failed");
  expect(await c.get(flaky.id), "completed");
  expect(w, "completed");
  expect(await c.get(durable.id), "completed");
  expect(await c.get(toolTimedOut.id), "failed");
  for (const r of timedOut) expect(await c.get(r.id), "timed_out");
  expect(await c.get(toCancel.id), "cancelled");

  return {
    killerA: killerA.id,
    killerB: killerB.id,
    deadLetters: deadLetters.map((r) => r.id),
    waiting: w.id,
    interrupted: interrupted.id,
    parked: parked.id,
    flaky: flaky.id,
    durable: durable.id,
    durableQuarantined: durableQuarantined.id,
    completed: completed.map((r) => r.id),
    plainFailed: plainFailed.id,
    toolTimedOut: toolTimedOut.id,
    timedOut: timedOut.map((r) => r.id),
    cancelled: toCancel.id,
  };
}
