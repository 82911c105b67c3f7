import { isTerminal, type Step, sessionRuns, submit, waitFor, waitForRun } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, BACKENDS, startApi } from "./support";

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

describe.each(BACKENDS)("claiming ahead, on %s", (kind) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    // Runs under 50 ms count as short (held 250 ms at most): a loaded machine's no-op runs qualify.
    t = await startApi(kind, { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "2", OAH_CLAIM_AHEAD_RUN_MS: "50" });
  });
  afterAll(() => t?.dispose());

  it("slots with short runs claim ahead; a session held by a slot whose run turns long goes to the other slot; order kept", async () => {
    const session = (name: string) => `ahead-${kind}-${name}`;
    // Both slots busy first, so that what follows waits in the queue and is claimed as a backlog.
    const gates = await Promise.all(
      [0, 1].map((i) => submit(t.client, session(`gate-${i}`), [{ type: "sleep", ms: 1_000 }])),
    );
    await Promise.all(gates.map((g) => waitForRun(t.client, g.id, (r) => r.status === "running")));

    const short: Step[] = [];
    const names = Array.from({ length: SESSIONS }, (_, i) => session(`s${i}`));
    const firsts = await Promise.all(names.map((s) => submit(t.client, s, short)));
    // Claimed by a slot whose last runs were all short: it claims ahead while this one starts,
    // then holds that session while this run sleeps, longer than a claim is held.
    const long = await submit(t.client, session("long"), [{ type: "sleep", ms: 2_000 }]);
    const seconds = await Promise.all(names.map((s) => submit(t.client, s, short)));

    const all = await waitFor(
      "every run to end",
      async () => {
        const runs = await Promise.all([...names, session("long")].map((s) => sessionRuns(t.client, s)));
        return runs.flat().length === 2 * SESSIONS + 1 && runs.flat().every(isTerminal) ? runs : undefined;
      },
      60_000,
      100,
    );
    const longRun = all.at(-1)![0]!;
    names.forEach((_, i) => {
      const runs = all[i]!;
      expect(runs.map((r) => r.id)).toEqual([firsts[i]!.id, seconds[i]!.id]);
      expect(runs.map((r) => [r.status, r.attempt])).toEqual([
        ["completed", 1],
        ["completed", 1],
      ]);
      expect(ms(runs[1]!.startedAt)).toBeGreaterThanOrEqual(ms(runs[0]!.endedAt));
      // Nothing waited for the long run's slot: the session it held went back to the other slot.
      expect(ms(runs[1]!.endedAt)).toBeLessThan(ms(longRun.endedAt));
    });
    expect(longRun).toMatchObject({ id: long.id, status: "completed" });

    const counts = await claimsAhead(t);
    expect(counts.taken).toBeGreaterThan(0);
    expect(counts.put_back).toBeGreaterThanOrEqual(1);
  });
});
