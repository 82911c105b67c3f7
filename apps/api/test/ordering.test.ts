// @module-tag system

import type { Run } from "@oah/contract";
import { isTerminal, waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, BACKENDS, startApi } from "./support";

const SESSIONS = 20;
const RUNS_PER_SESSION = 10;

const ms = (iso: string | null) => Date.parse(iso ?? "");

describe.each(BACKENDS)("per-session order and exclusivity through the HTTP API, on %s", (kind) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(kind, { OAH_WORKERS_MAX: "8" });
  });
  afterAll(() => t?.dispose());

  async function runAndCheck(prefix: string, sessions: number, runsPerSession: number) {
    const sessionIds = Array.from({ length: sessions }, (_, i) => `${prefix}-${kind}-${i}`);
    // Within a session each submission waits for the previous one: that is the submission order.
    const submitted = await Promise.all(
      sessionIds.map(async (sessionId) => {
        const ids: string[] = [];
        for (let i = 0; i < runsPerSession; i++) {
          const run = (
            await t.oah.submit(sessionId, {
              input: { steps: [{ type: "sleep", ms: 5 + Math.floor(Math.random() * 20) }] },
            })
          ).run;
          ids.push(run.id);
        }
        return ids;
      }),
    );

    const finished = await waitFor(
      "every run to end",
      async () => {
        const all = await Promise.all(sessionIds.map((s) => t.oah.listRuns(s).then((p) => p.items)));
        return all.every((runs) => runs.length === runsPerSession && runs.every(isTerminal))
          ? all
          : undefined;
      },
      60_000,
      200,
    );

    const everyRun: Run[] = [];
    finished.forEach((runs, i) => {
      expect(runs.map((r) => r.status)).toEqual(Array(runsPerSession).fill("completed"));
      expect(runs.map((r) => r.id)).toEqual(submitted[i]);
      expect(runs.map((r) => r.attempt)).toEqual(Array(runsPerSession).fill(1));
      for (let k = 1; k < runs.length; k++) {
        // The next run starts only once the previous one has ended: no overlap, submission order.
        expect(ms(runs[k]!.startedAt)).toBeGreaterThanOrEqual(ms(runs[k - 1]!.endedAt));
      }
      everyRun.push(...runs);
    });

    const overlapping = everyRun.some((a) =>
      everyRun.some(
        (b) =>
          a.sessionId !== b.sessionId && ms(a.startedAt) < ms(b.endedAt) && ms(b.startedAt) < ms(a.endedAt),
      ),
    );
    expect(overlapping).toBe(true);
  }

  it(`runs ${SESSIONS} sessions × ${RUNS_PER_SESSION} runs: serial and in order within a session, parallel across`, () =>
    runAndCheck("order", SESSIONS, RUNS_PER_SESSION));

  it("keeps 3 long sessions serial while 8 workers could take them all at once", () =>
    runAndCheck("few", 3, 15));
});
