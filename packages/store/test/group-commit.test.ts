// @module-tag unit

import { describe, expect, it } from "vitest";
import { GroupCommit } from "../src/group-commit";

/** A group commit whose writes take `ms` and are recorded, batch by batch, with how many were in flight at most. */
function recorded(ms = 5, concurrency = 1) {
  const batches: string[][] = [];
  let inFlight = 0;
  const seen = { mostInFlight: 0 };
  const commit = new GroupCommit(
    async (requests: string[]) => {
      batches.push([...requests]);
      seen.mostInFlight = Math.max(seen.mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, ms));
      inFlight--;
      if (requests.includes("bad")) throw new Error("bad request");
      return requests.map((r) => `${r}:ok`);
    },
    200,
    concurrency,
  );
  return { batches, commit, seen };
}

describe("GroupCommit", () => {
  it("writes a call at once when no write is in flight", async () => {
    const { batches, commit } = recorded();
    expect(await commit.submit("a")).toBe("a:ok");
    expect(batches).toEqual([["a"]]);
  });

  it("writes the calls made while a write is in flight together, in the next write", async () => {
    const { batches, commit } = recorded();
    const first = commit.submit("a");
    const rest = ["b", "c", "d"].map((r) => commit.submit(r));
    expect(await Promise.all([first, ...rest])).toEqual(["a:ok", "b:ok", "c:ok", "d:ok"]);
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
  });

  it("keeps one batch in flight at a time, or as many as its concurrency allows", async () => {
    const serial = recorded(5);
    await Promise.all(["a", "b", "c", "d", "e"].map((r) => serial.commit.submit(r)));
    expect(serial.seen.mostInFlight).toBe(1);
    const parallel = recorded(5, 3);
    const calls = ["a", "b", "c", "d", "e"].map((r) => parallel.commit.submit(r));
    expect(await Promise.all(calls)).toEqual(["a:ok", "b:ok", "c:ok", "d:ok", "e:ok"]);
    // The first calls leave at once, one batch each; the rest wait for one of them to come back.
    expect(parallel.seen.mostInFlight).toBe(3);
    expect(parallel.batches).toEqual([["a"], ["b"], ["c"], ["d", "e"]]);
  });

  it("lets the callers a write resolves call again before the next write leaves", async () => {
    const { batches, commit } = recorded();
    // A caller that calls again once its call is written, a few awaits later (as a run
    // that started goes on to end): its second call rides in the next write with the
    // calls that were waiting, not in the one after.
    const caller = async () => {
      await commit.submit("start");
      await Promise.resolve();
      await Promise.resolve();
      return commit.submit("end");
    };
    const chained = caller();
    const waiting = commit.submit("other");
    await Promise.all([chained, waiting]);
    expect(batches).toEqual([["start"], ["other", "end"]]);
  });

  it("does not fail the other calls of a batch with one bad call", async () => {
    const { batches, commit } = recorded();
    const first = commit.submit("a");
    const results = await Promise.allSettled([first, commit.submit("b"), commit.submit("bad")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(batches).toEqual([["a"], ["b", "bad"], ["b"], ["bad"]]);
  });
});
