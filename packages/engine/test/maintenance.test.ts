// @module-tag unit

import { localMaintenanceLock, type MaintenanceLock } from "@oah/coordination";
import { describe, expect, it } from "vitest";
import { silentLogger, systemClock } from "../src";
import { sleep } from "../src/clock";
import { Maintenance } from "../src/maintenance/maintenance";
import { PARKED_TIMEOUT_INTERVAL_MS } from "../src/maintenance/parked-timeouts";
import type { MaintenanceContext, MaintenanceTask } from "../src/maintenance/task";
import { MAINTENANCE_PLUGINS } from "../src/maintenance/tasks";
import { ManualClock } from "./manual-clock";

type Told = { task: string; outcome: string };

function recorder() {
  const calls: string[] = [];
  const told: Told[] = [];
  const task = (name: string, intervalMs: number, body: () => Promise<void> = async () => {}) =>
    ({
      name,
      intervalMs,
      run: async ({ atStart }) => {
        calls.push(`${name}${atStart ? "@start" : ""}`);
        await body();
      },
    }) satisfies MaintenanceTask;
  const observers = { maintenanceRan: ({ task, outcome }: Told) => told.push({ task, outcome }) };
  return { calls, told, task, observers };
}

/** A lock another host holds for the tasks named. */
const heldElsewhere = (...tasks: string[]): MaintenanceLock => ({
  tryAcquire: async (task) => (tasks.includes(task) ? null : "token"),
  release: async () => {},
});

describe("maintenance", () => {
  it("runs every task once, in order, before the pool starts", async () => {
    const r = recorder();
    const m = new Maintenance([r.task("a", 0), r.task("b", 0), r.task("c", 0)], localMaintenanceLock, {
      logger: silentLogger,
      observers: r.observers,
      clock: systemClock,
    });
    await m.runAtStart();
    expect(r.calls).toEqual(["a@start", "b@start", "c@start"]);
    expect(r.told).toEqual(["a", "b", "c"].map((task) => ({ task, outcome: "done" })));
  });

  it("skips a task whose lock another host holds, and runs the others", async () => {
    const r = recorder();
    const m = new Maintenance([r.task("a", 0), r.task("b", 0)], heldElsewhere("a"), {
      logger: silentLogger,
      observers: r.observers,
      clock: systemClock,
    });
    await m.runAtStart();
    expect(r.calls).toEqual(["b@start"]);
    expect(r.told).toEqual([
      { task: "a", outcome: "skipped" },
      { task: "b", outcome: "done" },
    ]);
  });

  it("fails the start with the task's error, after freeing its lock", async () => {
    const r = recorder();
    const released: string[] = [];
    const lock: MaintenanceLock = {
      tryAcquire: async (task) => `${task}-token`,
      release: async (_task, token) => {
        released.push(token);
      },
    };
    const failing = r.task("a", 0, async () => {
      throw new Error("store away");
    });
    const m = new Maintenance([failing, r.task("b", 0)], lock, {
      logger: silentLogger,
      observers: r.observers,
      clock: systemClock,
    });
    await expect(m.runAtStart()).rejects.toThrow("store away");
    expect(r.calls).toEqual(["a@start"]);
    expect(released).toEqual(["a-token"]);
    expect(r.told).toEqual([{ task: "a", outcome: "failed" }]);
  });

  it("then runs each task on its own interval, never two at once, and goes on after a failure", async () => {
    const clock = new ManualClock(0);
    const r = recorder();
    let running = 0;
    let overlapped = false;
    let failures = 0;
    const busy = (fail: boolean) => async () => {
      running++;
      if (running > 1) overlapped = true;
      await sleep(clock, 15);
      running--;
      if (fail && failures++ === 0) throw new Error("once");
    };
    const warned: string[] = [];
    const logger = { ...silentLogger, warn: (_: object, msg?: string) => warned.push(msg ?? "") };
    const m = new Maintenance(
      [r.task("fast", 10, busy(true)), r.task("slow", 25, busy(false)), r.task("start-only", 0)],
      localMaintenanceLock,
      { logger, observers: r.observers, clock },
    );
    m.start();
    await clock.advance(200);
    expect(r.calls.filter((c) => c === "fast").length).toBeGreaterThan(3);
    expect(r.calls.filter((c) => c === "slow").length).toBeGreaterThan(1);
    await clock.advanceUntil(m.stop(), 5);
    const after = r.calls.length;
    // Intervals of both tasks pass again: nothing runs.
    await clock.advance(60);
    expect(r.calls.length).toBe(after);
    expect(overlapped).toBe(false);
    expect(r.calls).not.toContain("start-only");
    expect(warned).toEqual(["maintenance failed"]);
    expect(r.told).toContainEqual({ task: "fast", outcome: "failed" });
  });
});

describe("the maintenance tasks", () => {
  const context = (exclusiveOwner: boolean): MaintenanceContext => ({
    host: {} as MaintenanceContext["host"],
    settings: {
      strategy: "fail",
      maxAttempts: 3,
      exclusiveOwner,
      staleAfterMs: 30_000,
      scanIntervalMs: 15_000,
      auditRetentionMs: 90 * 86_400_000,
    },
  });

  it("recover stale runs first, then refill the queue, then reconcile it, then end parked runs past their deadline, then prune the audit log", () => {
    expect(MAINTENANCE_PLUGINS.map((plugin) => plugin(context(false)).name)).toEqual([
      "stale-runs",
      "queue-refill",
      "queue-reconcile",
      "parked-timeouts",
      "audit-retention",
    ]);
  });

  it.each([
    [false, { "stale-runs": 15_000, "queue-refill": 15_000, "queue-reconcile": 15_000 }],
    // One process owns every run: nobody else's to watch after its start. Parked runs still time out.
    [true, { "stale-runs": 0, "queue-refill": 0, "queue-reconcile": 0 }],
  ])("with an exclusive owner %s, run at these intervals after the start", (exclusiveOwner, intervals) => {
    const expected = {
      ...intervals,
      "parked-timeouts": PARKED_TIMEOUT_INTERVAL_MS,
      "audit-retention": 3_600_000,
    };
    const got = Object.fromEntries(
      MAINTENANCE_PLUGINS.map((plugin) => plugin(context(exclusiveOwner))).map((t) => [t.name, t.intervalMs]),
    );
    expect(got).toEqual(expected);
  });
});
