// (s) Event streams: `streams` session streams held open on one `oah-api --api-only`
// while two `oah-sandbox` processes (8 slots each) execute `runsPerSession` runs of every
// session, submitted at `runsPerSecond` (Redis + PostgreSQL). Figures: how long the
// streams take to open, the API process's memory with them open, and the time from a
// run's start or end on a sandbox (the event's `at`, stamped by the sandbox's group commit
// before its commit) to its arrival on the client's stream, over every such event, and to
// its sending by the API (its oah_event_stream_delay_seconds histogram). The streams come
// from four loopback addresses: oah-api takes at most 500 connections per client address.
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";
import { createClient } from "@oah/client";
import type { StreamedEvent } from "@oah/contract";
import { createTempDir, type OahProcess, startOah } from "@oah/testing";
import { Agent, fetch as undiciFetch } from "undici";
import { log, sleep } from "../log";
import type { Services } from "../services";
import { percentile, round, summarize } from "../stats";
import { cell } from "../table";
import type { Workload } from "../workload";

export interface StreamsResult {
  streams: number;
  runs: number;
  openSeconds: number;
  apiRssMb: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Within the API: the histogram bucket that holds p50 / p99 of its sends (ms). */
  serverP50AtMostMs: number;
  serverP99AtMostMs: number;
  events: number;
}

const SOURCE_ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
const TIMED = new Set(["run.started", "run.completed"]);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** The bound of the first bucket of the API's stream delay histogram that holds `p` % of its events (ms). */
async function serverDelayBound(url: string, p: number): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const buckets = [...text.matchAll(/^oah_event_stream_delay_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)].map(
    (m) => [Number(m[1]), Number(m[2])] as const,
  );
  const total = buckets.at(-1)?.[1] ?? 0;
  const bound = buckets.find(([, n]) => n >= (total * p) / 100)?.[0] ?? Number.POSITIVE_INFINITY;
  return bound * 1000;
}

async function openStreams(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`);
  const line = /^oah_event_streams_open (\d+)/m.exec(await response.text());
  return Number(line?.[1] ?? 0);
}

export async function streamsOnce(
  services: Services,
  shape: { streams: number; runsPerSession: number; runsPerSecond: number },
): Promise<StreamsResult> {
  const db = await services.createDatabase("streams");
  const prefix = await services.createRedisPrefix("streams");
  const dir = createTempDir("oah-bench-");
  const env = {
    OAH_DATABASE_URL: db.url,
    OAH_REDIS_URL: services.redisUrl,
    OAH_REDIS_PREFIX: prefix.prefix,
    OAH_DATA_DIR: dir.path,
    OAH_LOG_LEVEL: "error",
  };
  const processes: OahProcess[] = [];
  const stop = new AbortController();
  // Every stream listens on it, and so does each of its reconnections.
  setMaxListeners(0, stop.signal);
  const agents = SOURCE_ADDRESSES.map((localAddress) => new Agent({ localAddress }));
  try {
    const api = await startOah("oah-api", { env, args: ["--api-only"] });
    processes.push(api);
    for (let i = 0; i < 2; i++) {
      processes.push(
        await startOah("oah-sandbox", { env: { ...env, OAH_WORKERS_MIN: "8", OAH_WORKERS_MAX: "8" } }),
      );
    }
    const submitter = createClient({ baseUrl: api.url });
    const latencies: number[] = [];
    let ended = 0;
    const total = shape.streams * shape.runsPerSession;
    const opened = Date.now();
    const readers = Array.from({ length: shape.streams }, async (_, i) => {
      const agent = agents[i % agents.length]!;
      const client = createClient({
        baseUrl: api.url,
        fetch: (input, init) =>
          undiciFetch(input, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
      });
      try {
        for await (const event of client.events({ sessionId: `st-${i}` }, { signal: stop.signal })) {
          const at = Date.now();
          if (!TIMED.has(event.type)) continue;
          latencies.push(at - Date.parse((event as StreamedEvent).at));
          if (event.type === "run.completed") ended++;
        }
      } catch (error) {
        if (!stop.signal.aborted) throw error;
      }
    });
    while ((await openStreams(api.url)) < shape.streams) {
      if (Date.now() - opened > 60_000) throw new Error("the streams did not all open within 60 s");
      await sleep(50);
    }
    const openSeconds = round((Date.now() - opened) / 1000, 2);
    const apiRssMb = rssMb(api.child.pid!);
    // At a steady rate well below what the deployment drains: the figure is the path's, not a backlog's.
    const jobs = Array.from({ length: shape.runsPerSession }, () =>
      Array.from({ length: shape.streams }, (_, i) => `st-${i}`),
    ).flat();
    const submitted = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let k = next++; k < jobs.length; k = next++) {
          const due = submitted + (k * 1000) / shape.runsPerSecond;
          if (due > Date.now()) await sleep(due - Date.now());
          await submitter.submit(jobs[k]!, { input: { steps: [{ type: "sleep", ms: 5 }] } });
        }
      }),
    );
    const deadline = Date.now() + 180_000;
    while (ended < total) {
      if (Date.now() > deadline) throw new Error(`only ${ended} of ${total} runs reached their streams`);
      await sleep(50);
    }
    stop.abort();
    await Promise.all(readers);
    const serverP50AtMostMs = await serverDelayBound(api.url, 50);
    const serverP99AtMostMs = await serverDelayBound(api.url, 99);
    const result: StreamsResult = {
      streams: shape.streams,
      runs: total,
      openSeconds,
      apiRssMb,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
      latencyMaxMs: Math.max(...latencies),
      serverP50AtMostMs,
      serverP99AtMostMs,
      events: latencies.length,
    };
    log(
      `  streams: ${result.streams} open in ${openSeconds} s (API ${apiRssMb} MB); ${result.events} starts and ends ` +
        `reached them in p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, max ${result.latencyMaxMs} ms ` +
        `(sent by the API within ${serverP50AtMostMs} / ${serverP99AtMostMs} ms at p50 / p99)`,
    );
    return result;
  } finally {
    stop.abort();
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await Promise.all(agents.map((a) => a.close()));
    await prefix.clear();
    await db.drop();
    dir.remove();
  }
}

export const streams: Workload<StreamsResult[]> = {
  name: "streams",
  alias: "s",
  measures: "1,000 open event streams and the time an event takes from a sandbox to them",
  systems: { own: "oah split, one oah-api --api-only and two oah-sandbox of 8 slots" },
  writes: {
    streams: ["unit", "shape", "openSeconds", "apiRssMb", "latency"],
  },
  async run({ plan, services }) {
    const rs: StreamsResult[] = [];
    for (let rep = 1; rep <= plan.reps; rep++) {
      log(`(s) ${plan.streams.streams} open event streams, repetition ${rep}/${plan.reps}`);
      rs.push(await streamsOnce(services, plan.streams));
    }
    return rs;
  },
  report(rs, plan) {
    const of = (pick: (r: StreamsResult) => number) => summarize(rs.map(pick));
    const streams = {
      unit: "session streams held open by clients of one oah-api --api-only while two oah-sandbox (8 slots each) execute every session's runs, Redis + PostgreSQL",
      shape: plan.streams,
      openSeconds: of((r) => r.openSeconds),
      apiRssMb: of((r) => r.apiRssMb),
      latency: {
        p50Ms: of((r) => r.latencyP50Ms),
        p99Ms: of((r) => r.latencyP99Ms),
        maxMs: of((r) => r.latencyMaxMs),
      },
    };
    const { latency } = streams;
    return {
      sections: { streams },
      absolute: [
        {
          figure: `${plan.streams.streams} session streams on one oah-api --api-only: opened in (s) / its memory (MB)`,
          value: `${cell(streams.openSeconds)} / ${cell(streams.apiRssMb)}`,
        },
        {
          figure:
            "a run's start or end on a sandbox to the API's stream: p50 / p99 / max (ms; target p99 ≤ 100)",
          value: `${cell(latency.p50Ms)} / ${cell(latency.p99Ms)} / ${cell(latency.maxMs)}`,
        },
      ],
    };
  },
};
