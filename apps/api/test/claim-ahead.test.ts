// @module-tag system

import type { Run } from "@oah/contract";
import { isTerminal, waitFor } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, type Backend, startApi } from "./support";

const SESSIONS = 30;
const ms = (iso: string | null) => Date.parse(iso ?? "");

async function claimsAhead(t: ApiUnderTest): Promise<Record<string, number>> {
  const text = await fetch(`${t.api.url}/metrics`).then((r) => r.text());
  const counts: Record<string, number> = {};
  for (const [, outcome, n] of text.matchAll(/^oah_claims_ahead_total\{outcome="(\w+)"\} (\d+)$/gm)) {
    counts[outcome!] = Number(n);
  }
  return counts;
}

/**
 * Two slots busy, then a backlog of 30 sessions × 2 no-op runs with a long run in the
 * middle of it: the slot that takes the long run has just run short ones. Checks
 * that every run completed once, in order, and that none waited for the long run's
 * slot; returns the long run.
 */
async function backlogWithALongRun(t: ApiUnderTest, kind: Backend): Promise<Run> {
  const session = (name: string) => `ahead-${kind}-${name}`;
  const gates = await Promise.all(
    [0, 1].map((i) =>
      t.oah
        .submit(session(`gate-${i}`), { input: { steps: [{ type: "sleep", ms: 1_000 }] } })
        .then((r) => r.run),
    ),
  );
  await Promise.all(gates.map((g) => t.oah.wait(g.id, { until: ["running"] })));

  const names = Array.from({ length: SESSIONS }, (_, i) => session(`s${i}`));
  const firsts = await Promise.all(
    names.map((s) => t.oah.submit(s, { input: { steps: [] } }).then((r) => r.run)),
  );
  const long = (await t.oah.submit(session("long"), { input: { steps: [{ type: "sleep", ms: 2_000 }] } }))
    .run;
  const seconds = await Promise.all(
    names.map((s) => t.oah.submit(s, { input: { steps: [] } }).then((r) => r.run)),
  );

  const all = await waitFor(
    "every run to end",
    async () => {
      const runs = await Promise.all(
        [...names, session("long")].map((s) => t.oah.listRuns(s).then((p) => p.items)),
      );
      return runs.flat().length === 2 * SESSIONS + 1 && runs.flat().every(isTerminal) ? runs : undefined;
    },
    60_000,
    100,
  );
  const longRun = all.at(-1)![0]!;
  expect(longRun).toMatchObject({ id: long.id, status: "completed" });
  names.forEach((_, i) => {
    const runs = all[i]!;
    expect(runs.map((r) => r.id)).toEqual([firsts[i]!.id, seconds[i]!.id]);
    expect(runs.map((r) => [r.status, r.attempt])).toEqual([
      ["completed", 1],
      ["completed", 1],
    ]);
    expect(ms(runs[1]!.startedAt)).toBeGreaterThanOrEqual(ms(runs[0]!.endedAt));
    // Nothing waited for the long run's slot: it started before that run ended (an end in the
    // same group commit as the long run's shares its time, so ends are not compared).
    expect(ms(runs[1]!.startedAt)).toBeLessThan(ms(longRun.endedAt));
  });
  return longRun;
}

// Runs under 50 ms count as short (a claim is held 250 ms at most): a loaded machine's no-op runs qualify.
const SLOTS = { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2", OAH_CLAIM_AHEAD_RUN_MS: "50" };

const CASES: [Backend, string, (counts: Record<string, number>) => void][] = [
  [
    "redis",
    "slots with short runs claim ahead; the session held by the slot whose run turns long goes back, to the other slot",
    (counts) => {
      expect(counts.taken).toBeGreaterThan(0);
      expect(counts.put_back).toBeGreaterThanOrEqual(1);
    },
  ],
  [
    "sqlite",
    "the in-process queue's claims cost no round trip: the same backlog runs in order with no claim ahead",
    (counts) => expect(counts).toEqual({}),
  ],
];

describe.each(CASES)("claiming ahead, on %s", (kind, name, expectClaimsAhead) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(kind, SLOTS);
  });
  afterAll(() => t?.dispose());

  it(name, async () => {
    await backlogWithALongRun(t, kind);
    expectClaimsAhead(await claimsAhead(t));
  });
});
