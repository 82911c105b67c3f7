// @module-tag system

import { type SplitDeployment, startSplitDeployment, waitForQuiet } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOf } from "./support";

const SESSIONS = 200;
const RUNS_PER_SESSION = 10;

interface Row {
  session_id: string;
  seq: number;
  id: string;
  status: string;
  attempt: number;
  started_at: number;
  ended_at: number;
  worker_id: string;
}

describe("split mode: oah-api --api-only and three oah-sandbox processes on Redis and PostgreSQL", () => {
  let d: SplitDeployment;
  beforeAll(async () => {
    d = await startSplitDeployment({
      sandboxes: 3,
      sandboxEnv: { OAH_WORKERS_MIN: "4", OAH_WORKERS_MAX: "4" },
    });
  }, 60_000);
  afterAll(() => d?.dispose());

  it(`runs ${SESSIONS} sessions × ${RUNS_PER_SESSION} runs: each session serial and in order, every sandbox used`, async () => {
    const submitted = new Map<string, string[]>();
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const sessionId = `split-${i}`;
        const ids: string[] = [];
        for (let k = 0; k < RUNS_PER_SESSION; k++) {
          const run = (
            await clientOf(d).submit(sessionId, {
              input: { steps: [{ type: "sleep", ms: 1 + Math.floor(Math.random() * 8) }] },
            })
          ).run;
          ids.push(run.id);
        }
        submitted.set(sessionId, ids);
      }),
    );
    await waitForQuiet(d);

    const { rows } = await d.db.query<Row>(
      "SELECT session_id, seq, id, status, attempt, started_at, ended_at, worker_id FROM runs ORDER BY session_id, seq",
    );
    expect(rows).toHaveLength(SESSIONS * RUNS_PER_SESSION);
    expect(rows.filter((r) => r.status !== "completed" || r.attempt !== 1)).toEqual([]);
    const bySession = new Map<string, Row[]>();
    for (const row of rows) bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), row]);
    for (const [sessionId, runs] of bySession) {
      expect(runs.map((r) => r.id)).toEqual(submitted.get(sessionId));
      for (let k = 1; k < runs.length; k++) {
        expect(Number(runs[k]!.started_at)).toBeGreaterThanOrEqual(Number(runs[k - 1]!.ended_at));
      }
    }
    // Every sandbox executed runs: worker ids carry their host's pid.
    const pids = new Set(rows.map((r) => /-(\d+)-[0-9a-f]{4}\//.exec(r.worker_id)?.[1]));
    for (const sandbox of d.sandboxes) expect(pids).toContain(String(sandbox.child.pid));
    // Redis keeps nothing of the finished work but its counter, marker, leases (the live hosts'
    // too, which list no run now) and pool reports.
    const left = (await d.redis.keys()).filter(
      (k) => !/:(marker|fence|worker-leases:.*|worker-lease-hosts|host:.*|pool.*)$/.test(k),
    );
    expect(left).toEqual([]);
  }, 180_000);
});
