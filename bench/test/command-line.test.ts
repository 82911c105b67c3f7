// @module-tag system

import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/command-line";
import { type BenchOptionValues, benchPlan } from "../src/plan";
import { WORKLOADS } from "../src/registry";

const FULL: BenchOptionValues = { quick: false, "private-services": false };
const LATEST = "bench/results/latest.json";
const CUSTOM = "bench/results/custom.json";
const ALL =
  "throughput,dispatch,mixed,admin,memory,parts,commands,checkpoints,parked,submit,long-runs,scale,bulk,streams";
const NAMES =
  "throughput (a), dispatch (b), mixed (c), admin (d), memory (e), parts (f), commands (g), checkpoints (r), " +
  "parked (p), submit (i), long-runs (h), scale (l), bulk (k), streams (s)";

describe("the bench's plan from its options", () => {
  it.each([
    ["nothing: the whole bench", {}, { reps: 1, workloads: ALL, peers: 7, out: LATEST }],
    [
      "--quick",
      { quick: true },
      { reps: 1, workloads: "throughput,dispatch,parts,submit", peers: 7, out: LATEST },
    ],
    [
      "--only names",
      { only: "throughput,dispatch" },
      { reps: 1, workloads: "throughput,dispatch", peers: 7, out: CUSTOM },
    ],
    [
      "--only letters, the names' aliases",
      { only: "a,b" },
      { reps: 1, workloads: "throughput,dispatch", peers: 7, out: CUSTOM },
    ],
    [
      "--only in any order and with repeats: the order they run in, once each",
      { only: "s,parts,long-runs,f,a" },
      { reps: 1, workloads: "throughput,parts,long-runs,streams", peers: 7, out: CUSTOM },
    ],
    [
      "--workloads, as before, and a selection of peers",
      { workloads: "a,f", peers: "oahRedisPg,bullmq" },
      { reps: 1, workloads: "throughput,parts", peers: 2, out: CUSTOM },
    ],
    [
      "--workloads takes names too",
      { workloads: "mixed,c,admin" },
      { reps: 1, workloads: "mixed,admin", peers: 7, out: CUSTOM },
    ],
    [
      "--quick with --only: the selection, quick-sized",
      { quick: true, only: "commands" },
      { reps: 1, workloads: "commands", peers: 7, out: CUSTOM },
    ],
    ["--reps alone is a selection", { reps: "2" }, { reps: 2, workloads: ALL, peers: 7, out: CUSTOM }],
    [
      "--out wins",
      { only: "dispatch", out: "/tmp/x.json" },
      { reps: 1, workloads: "dispatch", peers: 7, out: "/tmp/x.json" },
    ],
    [
      "the committed figures: three repetitions into latest.json",
      { reps: "3", out: LATEST },
      { reps: 3, workloads: ALL, peers: 7, out: LATEST },
    ],
  ])("%s", (_, values, expected) => {
    const plan = benchPlan({ ...FULL, ...values });
    expect({
      reps: plan.reps,
      workloads: plan.workloads.map((w) => w.name).join(","),
      peers: plan.peers.length,
      out: plan.outFile,
    }).toEqual(expected);
  });

  it("names each workload once and gives each its own letter", () => {
    const names = WORKLOADS.flatMap((w) => [w.name, w.alias]);
    expect(new Set(names).size).toBe(names.length);
    expect(WORKLOADS.map((w) => w.alias).join("")).toBe("abcdefgrpihlks");
  });

  it.each([
    [{ reps: "0" }, '--reps wants a whole number above 0, not "0"'],
    [{ reps: "x" }, '--reps wants a whole number above 0, not "x"'],
    [{ reps: "1.5" }, '--reps wants a whole number above 0, not "1.5"'],
    [{ only: "throughput,z" }, `--only: no workload "z" (one of ${NAMES})`],
    [{ only: "Throughput" }, `--only: no workload "Throughput" (one of ${NAMES})`],
    [{ workloads: "a,z" }, `--workloads: no workload "z" (one of ${NAMES})`],
    [{ only: "," }, "--only names nothing"],
    [{ workloads: "," }, "--workloads names nothing"],
    [{ only: "a", workloads: "b" }, "--only and --workloads are the same option: give one"],
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

  it("main.js --help lists every workload with its name, its letter and what it measures", () => {
    const { stdout } = command("main.js", "--help");
    const listed = stdout.split("\n").filter((line) => /^ {2}[a-z-]+ +[a-z] {2}\S/.test(line));
    expect(listed.map((line) => line.trim().split(/ +/).slice(0, 2).join(" "))).toEqual(
      WORKLOADS.map((w) => `${w.name} ${w.alias}`),
    );
    for (const w of WORKLOADS) expect(stdout).toContain(`${w.alias}  ${w.measures}\n`);
  });

  it.each([
    ["main.js", ["--reps", "x"], '--reps wants a whole number above 0, not "x"'],
    ["main.js", ["--workloads", "z"], '--workloads: no workload "z"'],
    ["main.js", ["--only", "throughput,z"], `--only: no workload "z" (one of ${NAMES})`],
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
