// The tables of bench/README.md ("The committed figures") are the report of the last full
// run, as bench/results/latest.json keeps it: written there by the run itself, and checked
// against it by the bench's tests, so that the bench's README never shows figures that no
// committed run produced.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file whose marker block shows the committed figures, from the repository's root. */
export const BENCH_README = join("bench", "README.md");

export const README_START = "<!-- bench:latest (generated from bench/results/latest.json) -->";
export const README_END = "<!-- /bench:latest -->";

/** Where the block's content starts and ends (between the markers); a README without them is refused. */
function blockOf(readme: string): { start: number; end: number } {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start)
    throw new Error(`the README has no "${README_START}" … "${README_END}" block`);
  return { start: start + README_START.length, end };
}

/** The README with the block between the markers replaced by `report`. */
export function withReport(readme: string, report: readonly string[]): string {
  const { start, end } = blockOf(readme);
  return `${readme.slice(0, start)}\n${report.join("\n")}\n${readme.slice(end)}`;
}

/** The report the README's block shows, as lines. */
export function readmeReport(readme: string): string[] {
  const { start, end } = blockOf(readme);
  return readme.slice(start, end).trim().split("\n");
}

/** The report a results file keeps (`report`, lines of markdown). */
export function reportOf(results: unknown): string[] {
  const report = (results as { report?: unknown }).report;
  if (!Array.isArray(report) || !report.every((line) => typeof line === "string"))
    throw new Error("the results file has no report (a run of the bench before it kept one)");
  return report;
}

/** Rewrites bench/README.md's block with a run's report (the one its results file keeps). */
export function writeReadmeReport(repoRoot: string, report: readonly string[]): void {
  const readmeFile = join(repoRoot, BENCH_README);
  writeFileSync(readmeFile, withReport(readFileSync(readmeFile, "utf8"), report));
}
