import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/paths";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (["node_modules", "dist", ".next", ".turbo"].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|lua|sh|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe("the design documents", () => {
  it("every SPEC §n a comment cites is a section of docs/spec.md", () => {
    const sections = new Set([...read("docs/spec.md").matchAll(/^## (\d+)\./gm)].map((m) => m[1]));
    const cited = ["packages", "apps", "bench"].flatMap((dir) =>
      sourceFiles(join(REPO_ROOT, dir)).flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/SPEC §(\d+)/g)].map((m) => ({
          file: relative(REPO_ROOT, file),
          section: m[1]!,
        })),
      ),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((c) => !sections.has(c.section))).toEqual([]);
  });

  it("every path docs/architecture.md names exists, and the README links to it", () => {
    const named = [
      ...read("docs/architecture.md").matchAll(/`((?:packages|apps|docs|drizzle|bench)\/[^`*<>\s]+)`/g),
    ].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
    expect(read("README.md")).toContain("docs/architecture.md");
  });
});
