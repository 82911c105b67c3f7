import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/command-line";
import { type BenchOptionValues, benchPlan } from "../src/plan";

const FULL: BenchOptionValues = { quick: false, "private-services": false };
const LATEST = "bench/results/latest.json";
const CUSTOM = "bench/results/custom.json";

describe("the bench's plan from its options", () => {
  it.each([
    [
      "nothing: the whole bench",
      {},
      { reps: 1, workloads: "a,b,c,d,e,f,g,h,i,k,l,p,s", peers: 7, out: LATEST },
    ],
    ["--quick", { quick: true }, { reps: 1, workloads: "a,b,f,i", peers: 7, out: LATEST }],
    [
      "a selection",
      { workloads: "a,f", peers: "oahRedisPg,bullmq" },
      { reps: 1, workloads: "a,f", peers: 2, out: CUSTOM },
    ],
    [
      "--reps alone is a selection",
      { reps: "2" },
      { reps: 2, workloads: "a,b,c,d,e,f,g,h,i,k,l,p,s", peers: 7, out: CUSTOM },
    ],
    [
      "--out wins",
      { workloads: "b", out: "/tmp/x.json" },
      { reps: 1, workloads: "b", peers: 7, out: "/tmp/x.json" },
    ],
    [
      "the committed figures: three repetitions into latest.json",
      { reps: "3", out: LATEST },
      { reps: 3, workloads: "a,b,c,d,e,f,g,h,i,k,l,p,s", peers: 7, out: LATEST },
    ],
  ])("%s", (_, values, expected) => {
    const plan = benchPlan({ ...FULL, ...values });
    expect({
      reps: plan.reps,
      workloads: [...plan.workloads].join(","),
      peers: plan.peers.length,
      out: plan.outFile,
    }).toEqual(expected);
  });

  it.each([
    [{ reps: "0" }, '--reps wants a whole number above 0, not "0"'],
    [{ reps: "x" }, '--reps wants a whole number above 0, not "x"'],
    [{ reps: "1.5" }, '--reps wants a whole number above 0, not "1.5"'],
    [{ workloads: "a,z" }, '--workloads: no "z" (one of a, b, c, d, e, f, g, h, i, k, l, p, s)'],
    [{ workloads: "," }, "--workloads names nothing"],
    [
      { peers: "sidekiq" },
      '--peers: no "sidekiq" (one of oahRedisPg, bullmq, oahSplit, pgBossStrictFifo, graphileNamedQueues, bullmqFsync, oahEmbedded)',
    ],
  ])("refuses %j", (values, message) => {
    expect(() => benchPlan({ ...FULL, ...values })).toThrow(new UsageError(message));
  });
});

// The built commands, as a user runs them: nothing starts on a bad command line.
const command = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(REPO_ROOT, "bench/dist", script), ...args], {
    encoding: "utf8",
    timeout: 20_000,
  });

describe("the bench's command lines", () => {
  it.each([["main.js"], ["soak.js"]])("%s --help prints the usage and exits 0", (script) => {
    const { status, stdout } = command(script, "--help");
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run (bench|soak) -- \[options\]/);
  });

  it.each([
    ["main.js", ["--reps", "x"], '--reps wants a whole number above 0, not "x"'],
    ["main.js", ["--workloads", "z"], '--workloads: no "z"'],
    ["main.js", ["--fast"], "Unknown option '--fast'"],
    ["soak.js", ["--minutes", "0"], '--minutes wants a number above 0, not "0"'],
    ["soak.js", ["--sandboxes", "two"], '--sandboxes wants a whole number above 0, not "two"'],
  ])("%s %j: says what is wrong, exits 2, writes nothing", (script, args, message) => {
    const written = () => statSync(join(REPO_ROOT, CUSTOM), { throwIfNoEntry: false })?.mtimeMs;
    const before = written();
    const { status, stderr, stdout } = command(script, ...args);
    expect(status).toBe(2);
    expect(stderr).toContain(`error: ${message}`);
    expect(stderr).toContain("Usage: npm run");
    expect(stdout).toBe("");
    expect(written()).toBe(before);
  });
});
