// @module-tag unit

import { describe, expect, it } from "vitest";
import { type EventNote, localBackend, type RunSignal } from "../src";
import { backendContract } from "./backend.contract";

backendContract("in-process", async () => {
  const backend = localBackend({ lockTtlMs: 10_000 });
  return { backend, listening: async () => {}, dispose: () => backend.close() };
});

describe("the in-process backend", () => {
  it("is alone: no pool board, worker registry or controller to share, and the maintenance lock always its own", async () => {
    const backend = localBackend({ lockTtlMs: 10_000 });
    expect(backend.kind).toBe("in-process");
    expect([backend.board, backend.workers, backend.controller]).toEqual([null, null, null]);
    expect(await backend.maintenanceLock.tryAcquire("stale-runs", 1_000)).toEqual(expect.any(String));
    expect(await backend.maintenanceLock.tryAcquire("stale-runs", 1_000)).toEqual(expect.any(String));
    await backend.close();
  });

  it("closes its signals and events with it: their listeners hear nothing more", async () => {
    const backend = localBackend({ lockTtlMs: 10_000 });
    const signals: RunSignal[] = [];
    const notes: EventNote[] = [];
    backend.signals.subscribe((signal) => signals.push(signal));
    backend.events.subscribe((note) => notes.push(note));
    await backend.close();
    await backend.signals.publish({ kind: "cancel", runId: "run_1" });
    backend.events.publish({ kind: "written", sessionIds: ["s1"] });
    // The bus delivers a note in a microtask: past this one, it would have.
    await new Promise((r) => setTimeout(r, 0));
    expect([signals, notes]).toEqual([[], []]);
  });
});
