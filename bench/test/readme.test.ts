// @module-tag unit

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { LATEST_RESULTS } from "../src/plan";
import { BENCH_README, README_END, README_START, readmeReport, reportOf, withReport } from "../src/readme";

describe("bench/README.md's committed figures", () => {
  it("are the report of the committed bench/results/latest.json, line for line", () => {
    const readme = readFileSync(join(REPO_ROOT, BENCH_README), "utf8");
    const report = reportOf(JSON.parse(readFileSync(join(REPO_ROOT, LATEST_RESULTS), "utf8")));
    expect(report.some((line) => line.startsWith("| "))).toBe(true);
    expect(readmeReport(readme)).toEqual(report);
  });

  it("are rewritten between the markers alone, and a README without them is refused", () => {
    const readme = `intro\n${README_START}\nold table\n${README_END}\noutro\n`;
    expect(withReport(readme, ["| a |", "|---|"])).toBe(
      `intro\n${README_START}\n| a |\n|---|\n${README_END}\noutro\n`,
    );
    expect(() => withReport("no markers", ["x"])).toThrow(/no .* block/);
    expect(() => reportOf({ at: "2026-12-02" })).toThrow(/no report/);
  });
});
