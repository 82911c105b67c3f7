// @module-tag unit

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "../src");
const IMPORT = /^(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm;

/** Every module the file reaches, and every import that leaves the package, from `file` on. */
function reach(file: string, seen = new Set<string>(), outside = new Set<string>()) {
  if (seen.has(file)) return { seen, outside };
  seen.add(file);
  for (const [, target] of readFileSync(join(SRC, file), "utf8").matchAll(IMPORT)) {
    if (target!.startsWith(".")) reach(`${join(dirname(file), target!)}.ts`, seen, outside);
    else outside.add(`${file} -> ${target}`);
  }
  return { seen, outside };
}

describe("@oah/core's index", () => {
  // The console imports its value lists (statuses, error codes, …) in browser code.
  it("reaches nothing but the core's own pure modules: no Node module, no package", () => {
    const { seen, outside } = reach("index.ts");
    expect(seen.size).toBeGreaterThan(5);
    expect([...outside]).toEqual([]);
  });

  it("leaves out the run id generator, which needs node:crypto", () => {
    expect(reach("index.ts").seen.has("run-id.ts")).toBe(false);
    expect([...reach("run-id.ts").outside]).toEqual(["run-id.ts -> node:crypto"]);
  });
});
