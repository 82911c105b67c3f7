// @module-tag unit

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@oah/testing";
import { describe, expect, it } from "vitest";
import { ALL_VARIABLES, renderConfigTable, withConfigTable } from "../src";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

describe("the configuration's documentation, from its declarations", () => {
  it("docs/operations.md holds the table the declarations make (else: npm run docs:config)", () => {
    const doc = read("docs/operations.md");
    expect(
      doc === withConfigTable(doc),
      "docs/operations.md's configuration table is stale: run npm run docs:config",
    ).toBe(true);
  });

  it("declares each variable once, with a description and a default shown", () => {
    const names = ALL_VARIABLES.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThan(60);
    for (const v of ALL_VARIABLES) {
      expect(v.name).toMatch(/^OAH_[A-Z0-9_]+$/);
      expect(v.description.length, v.name).toBeGreaterThan(10);
      expect(v.shownDefault, v.name).not.toBe("");
    }
    expect(
      renderConfigTable()
        .split("\n")
        .filter((line) => line.startsWith("| `OAH_")),
    ).toHaveLength(names.length);
  });

  it("every variable the spec names clients depend on is declared", () => {
    const spec = read("docs/spec.md");
    const environment = spec.slice(spec.indexOf("### Environment"), spec.indexOf("### HTTP and tRPC"));
    const named = [...new Set([...environment.matchAll(/`(OAH_[A-Z0-9_]+)`/g)].map((m) => m[1]!))];
    expect(named.length).toBeGreaterThan(40);
    const declared = new Set(ALL_VARIABLES.map((v) => v.name));
    expect(named.filter((name) => !declared.has(name))).toEqual([]);
  });

  it("every OAH_ variable the processes, the console and the scripts read is declared", () => {
    const readers = [
      "scripts/start.mjs",
      "apps/web/scripts/serve.mjs",
      "apps/web/src/lib/server-config.ts",
      "apps/web/src/lib/upstream.ts",
    ];
    const read_ = readers.flatMap((file) =>
      [...read(file).matchAll(/env(?:\??\.)(OAH_[A-Z0-9_]+)/g)].map((m) => m[1]!),
    );
    expect(read_.length).toBeGreaterThan(3);
    const declared = new Set(ALL_VARIABLES.map((v) => v.name));
    expect([...new Set(read_)].filter((name) => !declared.has(name))).toEqual([]);
  });
});
