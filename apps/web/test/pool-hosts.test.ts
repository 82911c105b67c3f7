// @module-tag unit

import type { PoolOverview } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { ALL_HOSTS, decisionsOf, shownHost } from "../src/lib/pool/hosts";
import { liveHostsText, pressuresText, slotNumber, slotTitle } from "../src/lib/pool/labels";
import { snapshot } from "./pool-snapshots";

const a = snapshot({ hostId: "a" });
const b = snapshot({ hostId: "b" });

describe("the shown host", () => {
  it.each<[string, string, string | null, string[]]>([
    [ALL_HOSTS, ALL_HOSTS, null, ["a", "b"]],
    ["b", "b", "b", ["b"]],
    // A host that went away: back to the totals.
    ["gone", ALL_HOSTS, null, ["a", "b"]],
  ])("choosing %s shows %s", (chosen, hostId, host, snapshots) => {
    const shown = shownHost([a, b], chosen);
    expect(shown.hostId).toBe(hostId);
    expect(shown.host?.hostId ?? null).toBe(host);
    expect(shown.snapshots.map((s) => s.hostId)).toEqual(snapshots);
  });
});

describe("the decisions shown", () => {
  const decision = (hostId: string, at: number) =>
    ({ hostId, at, reason: "steady" }) as PoolOverview["recentDecisions"][number];
  const decisions = [decision("a", 3), decision("b", 2), decision("a", 1)];

  it.each<[string, number[]]>([
    [ALL_HOSTS, [3, 2, 1]],
    ["a", [3, 1]],
    ["c", []],
  ])("of %s", (hostId, ats) => {
    expect(decisionsOf(decisions, hostId).map((d) => d.at)).toEqual(ats);
  });
});

describe("pool labels", () => {
  it("name the pressures tersely", () => {
    expect(pressuresText({ queue: 1, saturation: 2, subagentReserve: 0, age: 3 })).toBe("q1 s2 r0 a3");
  });

  it.each<[number, string]>([
    [0, "0 live hosts"],
    [1, "1 live host"],
    [2, "2 live hosts"],
  ])("%d hosts: %s", (count, text) => {
    expect(liveHostsText(count)).toBe(text);
  });

  it.each<[string | null, string]>([
    [null, "idle"],
    ["run_1", "s-1 · run_1"],
  ])("a slot working on %s is titled %s", (runId, title) => {
    const slot = { id: "host-a-slot-3", state: "idle" as const, sessionId: runId && "s-1", runId };
    expect(slotNumber(slot)).toBe("3");
    expect(slotTitle(slot)).toBe(title);
  });
});
