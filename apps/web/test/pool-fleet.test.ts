// @module-tag unit

import type { ControllerReport, HostOrderAccepted, PoolOverview } from "@oah/contract";
import type { FleetDecision, HostState } from "@oah/core";
import { describe, expect, it } from "vitest";
import { controllerText, hostBadges, isLate } from "../src/lib/pool/fleet";
import {
  type HostOrderAction,
  hostActions,
  ORDER_COPY,
  orderedNotice,
  orderTitle,
} from "../src/lib/pool/host-orders";
import { ALL_HOSTS } from "../src/lib/pool/hosts";
import { decisionTimeline } from "../src/lib/pool/timeline";

describe("a host's snapshot", () => {
  it.each<[string, number, boolean]>([
    ["just renewed", 10_000, false],
    ["two intervals old", 12_000, false],
    ["past two intervals", 12_001, true],
  ])("%s is late: %s", (_, now, late) => {
    expect(isLate({ at: 10_000, intervalMs: 1_000 }, now)).toBe(late);
  });
});

describe("a host's badges", () => {
  it.each<[HostState, number, string[], string[]]>([
    ["active", 10_500, ["active"], ["host-active"]],
    ["cordoned", 10_500, ["cordoned"], ["host-cordoned"]],
    ["draining", 10_500, ["draining"], ["host-draining"]],
    ["drained", 10_500, ["drained"], ["host-drained"]],
    ["active", 15_000, ["active", "late"], ["host-active", "host-late"]],
    ["cordoned", 15_000, ["cordoned", "late"], ["host-cordoned", "host-late"]],
  ])("%s read at %d: %j", (state, now, labels, classNames) => {
    const badges = hostBadges({ state, at: 10_000, intervalMs: 1_000 }, now);
    expect(badges.map((b) => b.label)).toEqual(labels);
    expect(badges.map((b) => b.className)).toEqual(classNames);
  });

  it("say how late a late snapshot is", () => {
    const late = hostBadges({ state: "active", at: 10_000, intervalMs: 1_000 }, 15_000)[1];
    expect(late?.title).toBe("no snapshot for 5.00 s (one is expected every 1.00 s)");
  });
});

describe("the orders a host can be given", () => {
  it.each<[HostState, HostOrderAction[]]>([
    ["active", ["cordon", "drain"]],
    ["cordoned", ["uncordon"]],
    ["draining", ["uncordon"]],
    ["drained", ["uncordon"]],
  ])("%s: %j", (state, actions) => {
    expect(hostActions(state)).toEqual(actions);
  });

  it.each<[HostOrderAction, string, boolean]>([
    ["cordon", "Cordon host-a?", false],
    ["drain", "Drain host-a?", true],
    ["uncordon", "Uncordon host-a?", false],
  ])("%s is confirmed as %s (danger: %s)", (action, title, danger) => {
    expect(orderTitle(action, "host-a")).toBe(title);
    expect(ORDER_COPY[action].danger).toBe(danger);
  });

  it.each<[HostOrderAction, HostOrderAccepted, string]>([
    [
      "cordon",
      { hostId: "host-a", state: "cordoned" },
      "Cordon ordered for host-a: it turns cordoned at its next tick.",
    ],
    [
      "drain",
      { hostId: "host-b", state: "draining" },
      "Drain ordered for host-b: it turns draining at its next tick.",
    ],
    [
      "uncordon",
      { hostId: "host-a", state: "active" },
      "Uncordon ordered for host-a: it turns active at its next tick.",
    ],
  ])("%s taken: %s", (action, result, text) => {
    expect(orderedNotice(action, result)).toEqual({ kind: "ok", text });
  });
});

describe("who sizes the fleet", () => {
  it.each<[ControllerReport | null, string]>([
    [null, "no controller"],
    [{ leaderId: "ctrl-1" } as ControllerReport, "leader ctrl-1"],
  ])("%j: %s", (controller, text) => {
    expect(controllerText(controller)).toBe(text);
  });
});

describe("the decisions timeline", () => {
  const pool = (hostId: string, at: number) =>
    ({ hostId, at, reason: "steady" }) as PoolOverview["recentDecisions"][number];
  const fleet = (at: number, blockedBy: FleetDecision["blockedBy"] = null) =>
    ({ at, reason: blockedBy ? "blocked" : "steady", blockedBy }) as FleetDecision;
  // The pools' newest first, the controller's oldest first: as the API lists them.
  const pools = [pool("a", 50), pool("b", 30), pool("a", 10)];
  const controller = [fleet(20, "host_draining"), fleet(30), fleet(60)];
  const entry = (e: ReturnType<typeof decisionTimeline>[number]) =>
    e.source === "pool" ? `${e.decision.hostId}@${e.at}` : `controller@${e.at}`;

  it.each<[string, readonly FleetDecision[], string[]]>([
    [ALL_HOSTS, controller, ["controller@60", "a@50", "b@30", "controller@30", "controller@20", "a@10"]],
    ["a", controller, ["controller@60", "a@50", "controller@30", "controller@20", "a@10"]],
    ["gone", controller, ["controller@60", "controller@30", "controller@20"]],
    [ALL_HOSTS, [], ["a@50", "b@30", "a@10"]],
  ])(
    "of %s: newest first, a host's before the controller's at the same instant",
    (hostId, decisions, entries) => {
      expect(decisionTimeline(pools, decisions, hostId).map(entry)).toEqual(entries);
    },
  );

  it("keeps what blocked the controller", () => {
    const blocked = decisionTimeline([], controller, ALL_HOSTS).at(-1);
    expect(blocked).toMatchObject({
      source: "controller",
      decision: { reason: "blocked", blockedBy: "host_draining" },
    });
  });
});
