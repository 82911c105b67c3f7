// @module-tag system
// @module-tag timed

import type { BulkDryRun, BulkJob, BulkJobItemsPage, DeadLetters } from "@oah/contract";
import { loadRuns, waitFor } from "@oah/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

/** A pool that never starts a worker. */
const NO_WORKERS = {
  OAH_WORKERS_MIN: "0",
  OAH_WORKERS_MAX: "1",
  OAH_POOL_SCALE_UP_SAMPLE_WINDOW: "1000",
  OAH_POOL_SCALE_INTERVAL_MS: "3600000",
};

async function call<T>(t: ApiUnderTest, method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.api.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/**
 * The process's longest event-loop delay (ms) since it was last asked: prom-client's gauge, read
 * from /metrics, which starts its histogram over at each read.
 */
async function loopDelayMax(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return 1_000 * Number(/^oah_process_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)![1]);
}

/** Latencies of /healthz asked one after another, every few ms, until stopped; and the loop's longest delay. */
function pollHealth(url: string) {
  const latencies: number[] = [];
  const reset = loopDelayMax(url);
  let stopped = false;
  let refused = 0;
  const polling = (async () => {
    while (!stopped) {
      const started = performance.now();
      const answer = await fetch(`${url}/healthz`).catch(() => null);
      if (answer?.status === 200) latencies.push(performance.now() - started);
      else refused++;
      await answer?.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await Promise.all([polling, reset]);
      const sorted = [...latencies].sort((a, b) => a - b);
      const p99 = sorted[Math.floor(sorted.length * 0.99)]!;
      return {
        count: sorted.length,
        refused,
        p99,
        max: sorted.at(-1)!,
        loopDelayMax: await loopDelayMax(url),
      };
    },
  };
}

describe("bulk actions by filter", () => {
  let t: ApiUnderTest | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  it("requeues 20,000 quarantined runs on PostgreSQL: the dry run's counts are what the job does, and a kill -9 mid-job loses nothing and requeues nothing twice", async () => {
    // A short lease: the restarted API takes the job up within seconds of its predecessor's death.
    // No worker executes the requeued runs: what is looked at is the job, not their executions.
    t = await startApi("postgres", {
      OAH_BULK_RUNS_PER_SECOND: "5000",
      OAH_SESSION_LOCK_TTL_MS: "3000",
      OAH_RUN_HEARTBEAT_INTERVAL_MS: "500",
      ...NO_WORKERS,
    });
    const api = t;
    const url = api.env.OAH_DATABASE_URL!;
    await loadRuns({ databaseUrl: url }, "bulk-ws", {
      quarantined: 20_000,
      plainFailed: 300,
      completed: 200,
    });
    const filter = { workspaceId: "bulk-ws", status: ["failed", "completed"] };

    // The quarantined runs are one dead-letter group; the failures recovery never touched are none.
    const letters = await call<DeadLetters>(api, "GET", "/api/v1/storage/dead-letters?workspaceId=bulk-ws");
    expect(letters.body.groups).toEqual([
      {
        reason: "max_attempts_exhausted",
        errorCode: "worker_recovery_failed",
        workspaceId: "bulk-ws",
        count: 20_000,
        oldestAt: expect.any(String),
        newestAt: expect.any(String),
        lastExecutions: [3, 2, 1].map(() => ({
          runId: expect.stringMatching(/^run_/),
          workerId: "test-host/w1",
          errorMessage: "failed in the test",
          at: expect.any(String),
        })),
      },
    ]);
    const [newest, , third] = letters.body.groups[0]!.lastExecutions;
    expect(newest!.at).toBe(letters.body.groups[0]!.newestAt);
    expect(newest!.at > third!.at).toBe(true);
    expect((await call(api, "GET", "/api/v1/storage/dead-letters?workspaceId=.bad")).body).toMatchObject({
      error: { code: "invalid_request" },
    });

    const dry = await call<BulkDryRun>(api, "POST", "/api/v1/bulk-actions", {
      action: "requeue",
      filter,
      dryRun: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body.matched).toBe(20_500);
    expect(dry.body.outcomes).toEqual({
      requeued: 20_000,
      run_requeue_not_supported: 300,
      run_requeue_invalid_status: 200,
    });
    expect(dry.body.examples.requeued).toHaveLength(5);
    // A dry run changes nothing.
    expect(
      (await call<{ items: unknown[] }>(api, "GET", "/api/v1/storage/runs?workspaceId=bulk-ws&status=queued"))
        .body.items,
    ).toEqual([]);

    const started = await call<{ job: BulkJob }>(api, "POST", "/api/v1/bulk-actions", {
      action: "requeue",
      filter,
    });
    expect(started.status).toBe(202);
    expect(started.body.job).toMatchObject({ status: "running", total: 20_500 });
    const { id } = started.body.job;
    await waitFor(
      "the job to be under way",
      async () => {
        const job = (await call<BulkJob>(api, "GET", `/api/v1/bulk-actions/${id}`)).body;
        return job.done >= 4_000 || undefined;
      },
      60_000,
    );
    expect(await api.api.stop("SIGKILL")).toBe("SIGKILL");
    const atDeath = (await call<BulkJob>(await restarted(api), "GET", `/api/v1/bulk-actions/${id}`)).body;
    expect(atDeath.done).toBeLessThan(20_500);

    const ended = await waitFor(
      "the job to end",
      async () => {
        const job = (await call<BulkJob>(api, "GET", `/api/v1/bulk-actions/${id}`)).body;
        return job.status !== "running" && job;
      },
      120_000,
    );
    expect(ended).toMatchObject({
      status: "completed",
      total: 20_500,
      done: 20_500,
      outcomes: dry.body.outcomes,
    });

    // Each run once: no run has two manual requeues, and every quarantined one has one.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const twice = await db.query(`SELECT run_id FROM run_events WHERE type = 'run.requeued'
        AND data->>'reason' = 'manual_operator_requeue' GROUP BY run_id HAVING count(*) > 1`);
      expect(twice.rowCount).toBe(0);
      const once =
        await db.query(`SELECT count(DISTINCT run_id)::int AS n FROM run_events WHERE type = 'run.requeued'
        AND data->>'reason' = 'manual_operator_requeue'`);
      expect(once.rows[0].n).toBe(20_000);
    } finally {
      await db.end();
    }
    // The items say what was done to each.
    const refused = await call<BulkJobItemsPage>(
      api,
      "GET",
      `/api/v1/bulk-actions/${id}/items?outcome=run_requeue_not_supported&limit=500`,
    );
    expect(refused.body.items).toHaveLength(300);
    expect(refused.body.items[0]!.message).toMatch(/stale-run recovery/);
    const first = await call<BulkJobItemsPage>(api, "GET", `/api/v1/bulk-actions/${id}/items?limit=2`);
    expect(first.body.items.map((i) => [i.position, i.outcome])).toEqual([
      [1, "requeued"],
      [2, "requeued"],
    ]);
    const next = await call<BulkJobItemsPage>(
      api,
      "GET",
      `/api/v1/bulk-actions/${id}/items?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(next.body.items.map((i) => i.position)).toEqual([3, 4]);
    expect((await call<{ items: BulkJob[] }>(api, "GET", "/api/v1/bulk-actions")).body.items[0]!.id).toBe(id);
    expect(
      (await call<DeadLetters>(api, "GET", "/api/v1/storage/dead-letters?workspaceId=bulk-ws")).body,
    ).toEqual({
      groups: [],
    });
  }, 300_000);

  it("cancels 100,000 queued runs on SQLite at its configured rate, six dry runs and the job leaving /healthz answering within 50 ms (p99)", async () => {
    const RUNS = 100_000;
    const RATE = 5_000;
    t = await startApi("sqlite", {
      OAH_BULK_RUNS_PER_SECOND: String(RATE),
      OAH_LOG_LEVEL: "info",
      ...NO_WORKERS,
    });
    const api = t;
    // The runs written into the store while no process has it, then an oah-api that owns them.
    await api.api.stop();
    // The pool's one worker takes one and keeps it: the others stay queued.
    const input = { steps: [{ type: "sleep", ms: 600_000 }] };
    await loadRuns({ dataDir: api.place.dataDir }, "backlog", { queued: RUNS, input });
    await api.restart();
    await waitFor("the queue refilled", async () => api.api.output().includes("put into the queue"), 60_000);
    const filter = { workspaceId: "backlog" };

    const dryRuns = pollHealth(api.api.url);
    const dry = await Promise.all(
      Array.from({ length: 6 }, () =>
        call<BulkDryRun>(api, "POST", "/api/v1/bulk-actions", { action: "cancel", filter, dryRun: true }),
      ),
    );
    const whileDry = await dryRuns.stop();
    const executing = dry[0]!.body.outcomes.cancel_requested ?? 0;
    expect(executing).toBeLessThanOrEqual(1);
    const outcomes = { cancelled: RUNS - executing, ...(executing ? { cancel_requested: executing } : {}) };
    for (const answer of dry) expect(answer.body).toMatchObject({ matched: RUNS, outcomes });

    const working = pollHealth(api.api.url);
    const started = await call<{ job: BulkJob }>(api, "POST", "/api/v1/bulk-actions", {
      action: "cancel",
      filter,
    });
    expect(started.status).toBe(202);
    expect(started.body.job).toMatchObject({ status: "running", total: RUNS });
    const { id } = started.body.job;
    // How far the job is, once a second: its rate is measured from its first chunk to its end.
    const samples: { at: number; done: number }[] = [];
    const ended = await waitFor(
      "the job to end",
      async () => {
        const job = (await call<BulkJob>(api, "GET", `/api/v1/bulk-actions/${id}`)).body;
        samples.push({ at: performance.now(), done: job.done });
        return job.status !== "running" && job;
      },
      5 * (RUNS / RATE) * 1_000,
      1_000,
    );
    const whileWorking = await working.stop();
    expect(ended).toMatchObject({ status: "completed", done: RUNS });
    // Every run ended where it waited, but the few the worker took meanwhile, asked to stop.
    const { cancelled = 0, cancel_requested: asked = 0, ...others } = ended.outcomes;
    expect([cancelled + asked, others]).toEqual([RUNS, {}]);
    const first = samples.find((s) => s.done > 0)!;
    const last = samples.at(-1)!;
    const rate = (last.done - first.done) / ((last.at - first.at) / 1_000);
    console.log(
      `bulk cancel of ${RUNS} runs on SQLite: ${Math.round(rate)} runs/s (configured ${RATE}), ${asked} executing; /healthz p99 ` +
        `${whileDry.p99.toFixed(1)} ms (max ${whileDry.max.toFixed(1)}, ${whileDry.count} probes, longest loop delay ` +
        `${whileDry.loopDelayMax.toFixed(1)} ms) during six dry runs, ${whileWorking.p99.toFixed(1)} ms (max ` +
        `${whileWorking.max.toFixed(1)}, ${whileWorking.count} probes, longest loop delay ` +
        `${whileWorking.loopDelayMax.toFixed(1)} ms) during the job`,
    );
    // At its rate, not above it; below it by no more than a loaded machine's share.
    expect(rate).toBeLessThanOrEqual(RATE * 1.1);
    expect(rate).toBeGreaterThanOrEqual(RATE * 0.5);
    expect([whileDry.refused, whileWorking.refused]).toEqual([0, 0]);
    expect(whileDry.count).toBeGreaterThan(20);
    expect(whileDry.p99).toBeLessThan(50);
    expect(whileWorking.count).toBeGreaterThan(200);
    expect(whileWorking.p99).toBeLessThan(50);
    const left = await call<{ items: unknown[] }>(
      api,
      "GET",
      "/api/v1/storage/runs?workspaceId=backlog&status=queued&limit=1",
    );
    expect(left.body.items).toEqual([]);
  }, 300_000);

  it("sends the events of a bulk cancel by filter to a session's SSE client within 250 ms of their commit", async () => {
    // Five runs a chunk, a chunk a second: the cancels come in four writes over three seconds,
    // each to be streamed as it commits, not at the stream's next periodic read (2 s).
    t = await startApi("sqlite", { OAH_BULK_RUNS_PER_SECOND: "5", ...NO_WORKERS });
    const api = t;
    const sessionId = "bulk-live";
    for (let i = 0; i < 20; i++)
      await call(api, "POST", `/api/v1/sessions/${sessionId}/runs`, {
        workspaceId: "bulk-live",
        input: { steps: [] },
      });
    const stop = new AbortController();
    /** Each run.cancelled event as it came: how long after its commit (its `at`) it reached the client. */
    const lags: number[] = [];
    let replayed = 0;
    let listening!: () => void;
    const live = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const streaming = (async () => {
      for await (const event of api.oah.events({ sessionId }, { signal: stop.signal })) {
        if (event.type === "run.queued" && ++replayed === 20) listening();
        if (event.type !== "run.cancelled" || !("id" in event)) continue;
        lags.push(Date.now() - Date.parse(event.at));
        if (lags.length === 20) stop.abort();
      }
    })();
    await live;
    const started = await call<{ job: BulkJob }>(api, "POST", "/api/v1/bulk-actions", {
      action: "cancel",
      filter: { workspaceId: "bulk-live", status: ["queued"] },
    });
    expect(started.status).toBe(202);
    await Promise.race([
      streaming,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`${lags.length} of 20 cancels streamed`)), 30_000),
      ),
    ]);
    expect(lags).toHaveLength(20);
    expect(Math.max(...lags)).toBeLessThanOrEqual(250);
  });

  it("cancels by filter, stops where it is when aborted, and refuses what it does not understand", async () => {
    t = await startApi("sqlite", {
      OAH_BULK_RUNS_PER_SECOND: "5",
      OAH_WORKERS_MIN: "0",
      OAH_WORKERS_MAX: "1",
    });
    const api = t;
    for (let i = 0; i < 30; i++)
      await call(api, "POST", `/api/v1/sessions/hold-${i}/runs`, {
        workspaceId: "hold",
        input: { steps: [{ type: "wait_tool", name: "never" }] },
      });
    await waitFor(
      "every run parked",
      async () => {
        const page = await call<{ items: { metadata: { parked?: boolean } }[] }>(
          api,
          "GET",
          "/api/v1/storage/runs?workspaceId=hold&limit=50",
        );
        return page.body.items.every((r) => r.metadata.parked === true) || undefined;
      },
      30_000,
    );
    const dry = await call<BulkDryRun>(api, "POST", "/api/v1/bulk-actions", {
      action: "cancel",
      filter: { workspaceId: "hold" },
      dryRun: true,
    });
    expect(dry.body).toMatchObject({ matched: 30, outcomes: { cancelled: 30 } });
    const { job } = (
      await call<{ job: BulkJob }>(api, "POST", "/api/v1/bulk-actions", {
        action: "cancel",
        filter: { workspaceId: "hold" },
      })
    ).body;
    // At 5 runs a second: abort it after a few.
    await waitFor(
      "a few cancelled",
      async () =>
        (await call<BulkJob>(api, "GET", `/api/v1/bulk-actions/${job.id}`)).body.done >= 5 || undefined,
    );
    const aborted = (await call<BulkJob>(api, "POST", `/api/v1/bulk-actions/${job.id}/abort`, {})).body;
    expect(aborted.status).toBe("aborted");
    // The audit log names the job a start made, and the job an abort stopped.
    const audit = (
      await call<{ items: { action: string; target: string | null }[] }>(api, "GET", "/api/v1/audit")
    ).body.items;
    expect(audit.slice(0, 3).map((e) => [e.action, e.target])).toEqual([
      ["bulk.abort", job.id],
      ["bulk.start", job.id],
      ["bulk.dry_run", null],
    ]);
    await new Promise((r) => setTimeout(r, 1_500));
    const after = (await call<BulkJob>(api, "GET", `/api/v1/bulk-actions/${job.id}`)).body;
    expect(after).toMatchObject({ status: "aborted", done: aborted.done });
    const cancelled = await call<{ items: unknown[] }>(
      api,
      "GET",
      "/api/v1/storage/runs?workspaceId=hold&status=cancelled&limit=50",
    );
    expect(cancelled.body.items).toHaveLength(aborted.done);

    expect(
      (
        await call<{ error: { code: string } }>(api, "POST", "/api/v1/bulk-actions", {
          action: "delete",
          filter: {},
        })
      ).body.error.code,
    ).toBe("invalid_request");
    expect(
      (
        await call<{ error: { code: string } }>(api, "POST", "/api/v1/bulk-actions", {
          action: "cancel",
          filter: { status: ["nope"] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call<{ error: { code: string } }>(
          api,
          "GET",
          "/api/v1/bulk-actions/bulk_00000000000000000000000000",
        )
      ).body.error.code,
    ).toBe("bulk_job_not_found");
    expect(
      (
        await call<{ items: unknown[] }>(
          api,
          "GET",
          "/api/v1/storage/runs?workspaceId=hold&status=cancelled&limit=50",
        )
      ).body.items,
    ).toHaveLength(aborted.done);
  });
});

/** Restarts the API on its store, and answers it. */
async function restarted(t: ApiUnderTest): Promise<ApiUnderTest> {
  await t.restart();
  return t;
}
