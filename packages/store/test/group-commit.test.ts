import { describe, expect, it } from "vitest";
import { GroupCommit } from "../src/group-commit";

/** A group commit whose writes take `ms` and are recorded, batch by batch. */
function recorded(ms = 5) {
  const batches: string[][] = [];
  const commit = new GroupCommit(async (requests: string[]) => {
    batches.push([...requests]);
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (requests.includes("bad")) throw new Error("bad request");
    return requests.map((r) => `${r}:ok`);
  });
  return { batches, commit };
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
