// @module-tag system

import { createClient } from "@oah/client";
import type { RunEvent, StreamedEvent } from "@oah/contract";
import { type OahProcess, type SplitDeployment, startOah, startSplitDeployment } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const RUNS = 50;
const TERMINAL = new Set(["run.completed", "run.failed", "run.cancelled", "run.timed_out"]);

const isStored = (e: StreamedEvent): e is RunEvent => "id" in e;

/** Reads a session's stream until `runs` runs have ended, or `stopAfter` stored events. */
async function readSession(
  baseUrl: string,
  token: string | undefined,
  sessionId: string,
  options: { after?: number; runs: number; stopAfter?: number },
): Promise<RunEvent[]> {
  const client = createClient({ baseUrl, token });
  const seen: RunEvent[] = [];
  let ended = 0;
  for await (const event of client.events({ sessionId }, { after: options.after })) {
    if (!isStored(event)) continue;
    seen.push(event);
    if (TERMINAL.has(event.type)) ended++;
    if (ended === options.runs || seen.length === options.stopAfter) break;
  }
  return seen;
}

describe("split mode: event streams served by oah-api, runs executed by two oah-sandbox processes", () => {
  let d: SplitDeployment;
  const extraApis: OahProcess[] = [];
  beforeAll(async () => {
    d = await startSplitDeployment({
      sandboxes: 2,
      sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2" },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(extraApis.map((p) => p.stop("SIGKILL")));
    await d?.dispose();
  });

  /** The session's events as the store holds them, in commit order. */
  async function stored(sessionId: string): Promise<number[]> {
    const { rows } = await d.db.query<{ id: string }>(
      `SELECT e.id FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.session_id = $1 ORDER BY e.tx, e.id`,
      [sessionId],
    );
    return rows.map((r) => Number(r.id));
  }

  async function submitRuns(sessionId: string, sleepMs: number): Promise<string[]> {
    const client = createClient({ baseUrl: d.api.url, token: d.env.OAH_API_TOKEN });
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { run } = await client.submit(sessionId, {
        executor: "script",
        input: {
          steps: [
            { type: "sleep", ms: sleepMs },
            { type: "output", value: { i } },
          ],
        },
      });
      ids.push(run.id);
    }
    return ids;
  }

  it(`a client streaming a session of ${RUNS} runs sees every event exactly once, in order`, async () => {
    const sessionId = "stream-whole";
    const reading = readSession(d.api.url, d.env.OAH_API_TOKEN, sessionId, { runs: RUNS });
    const ids = await submitRuns(sessionId, 2);
    const seen = await reading;

    expect(seen.map((e) => e.id)).toEqual(await stored(sessionId));
    // Each run queued, started and completed, the runs one after another in submission order.
    const ends = seen.filter((e) => TERMINAL.has(e.type));
    expect(ends.map((e) => [e.runId, e.type])).toEqual(ids.map((id) => [id, "run.completed"]));
    for (const id of ids) {
      expect(seen.filter((e) => e.runId === id).map((e) => e.type)).toEqual([
        "run.queued",
        "run.started",
        "run.completed",
      ]);
    }
    const hosts = new Set(seen.filter((e) => e.type === "run.started").map((e) => String(e.data?.workerId)));
    expect(hosts.size).toBeGreaterThan(1);
  }, 60_000);

  it("after the API process is killed mid-stream, a stream resumed from the last id gives the rest, no gap, no duplicate", async () => {
    const sessionId = "stream-kill";
    const before = readSession(d.api.url, d.env.OAH_API_TOKEN, sessionId, { runs: RUNS, stopAfter: 40 });
    await submitRuns(sessionId, 40);
    const first = await before;
    expect(first).toHaveLength(40);

    await d.api.stop("SIGKILL");
    // The sandboxes go on executing while no API is up; their events wait in the store.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const api = await startOah("oah-api", { env: d.env, args: ["--api-only"] });
    extraApis.push(api);
    const endedBefore = first.filter((e) => TERMINAL.has(e.type)).length;
    const rest = await readSession(api.url, d.env.OAH_API_TOKEN, sessionId, {
      after: first[first.length - 1]!.id,
      runs: RUNS - endedBefore,
    });

    const all = [...first, ...rest].map((e) => e.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(await stored(sessionId));
    expect(all).toHaveLength(RUNS * 3);
  }, 90_000);
});
