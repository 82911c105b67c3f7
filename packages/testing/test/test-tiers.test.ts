// @module-tag unit

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../../../vitest.config.mts";
import { REPO_ROOT } from "../src/paths";
import { filesOfTiers, fileTagsOf, TEST_TIERS, testFiles } from "../src/test-tiers";

/**
 * What starts a process or needs a server, as the tests call it: the helpers of this package and
 * of the suites' own support files. A unit-tier file that names one is in the wrong tier.
 */
const SYSTEM_HELPERS =
  /\b(startOah|runToExit|startSplitDeployment|startPrivateRedis|startPrivatePostgres|startRedisCluster|createTestDatabase|createTestRedis|clusterTestRedis|createStoreEnv|createHostNetwork|inNamespace|fuzzApi|forkLoop|copyCheckout|embeddedApi|startApi|JailedCommands|createTestRoot)\b|node:child_process/;

describe("the test tiers", () => {
  const files = testFiles(REPO_ROOT);

  it("finds the test files of every package, app and the bench", () => {
    const folders = new Set(files.map((f) => f.path.split("/").slice(0, 2).join("/")));
    expect(folders).toEqual(
      new Set([
        "apps/api",
        "apps/controller",
        "apps/sandbox",
        "apps/web",
        "bench/test",
        "packages/api",
        "packages/client",
        "packages/config",
        "packages/contract",
        "packages/controller",
        "packages/core",
        "packages/engine",
        "packages/coordination",
        "packages/redis",
        "packages/store",
        "packages/testing",
      ]),
    );
  });

  it("has every test file name one tier, unit or system, at its top", () => {
    const wrong = files
      .filter((f) => f.tiers.length !== 1)
      .map((f) => `${f.path}: ${f.tiers.length === 0 ? "names no tier" : `names ${f.tiers.join(" and ")}`}`);
    expect(wrong).toEqual([]);
    const unnamed = Object.keys(TEST_TIERS).filter((tier) => !files.some((f) => f.tiers[0] === tier));
    expect(unnamed).toEqual([]);
  });

  it("runs each file in its tier's project, and builds the apps for the system tier alone", () => {
    const projects = Object.fromEntries(
      (
        (config.test?.projects ?? []) as {
          test: { name: string; include: string[]; globalSetup?: string[] };
        }[]
      ).map((p) => [p.test.name, p.test]),
    );
    const tiers = filesOfTiers(files);
    expect(Object.keys(projects).sort()).toEqual([...Object.keys(TEST_TIERS), "system-timed"].sort());
    expect(projects.unit!.include).toEqual(tiers.unit);
    expect(projects.system!.include).toEqual(tiers.system);
    expect(projects["system-timed"]!.include).toEqual(tiers.timed);
    expect(
      [...projects.unit!.include, ...projects.system!.include, ...projects["system-timed"]!.include].sort(),
    ).toEqual(files.map((f) => f.path));
    // The timed files are system files, and run alone after the rest.
    expect(tiers.timed.every((path) => files.find((f) => f.path === path)!.tiers[0] === "system")).toBe(true);
    expect(projects["system-timed"]).toMatchObject({ fileParallelism: false, sequence: { groupOrder: 1 } });
    expect(projects.unit!.globalSetup).toBeUndefined();
    expect(projects.system!.globalSetup).toEqual(["./vitest.global-setup.ts"]);
  });

  it("keeps what starts a process or needs a server out of the unit tier", () => {
    // This file names them to look for them.
    const unit = files.filter(
      (f) => f.tiers[0] === "unit" && f.path !== "packages/testing/test/test-tiers.test.ts",
    );
    const misfiled = unit
      .map((f) => ({
        path: f.path,
        helper: SYSTEM_HELPERS.exec(readFileSync(join(REPO_ROOT, f.path), "utf8")),
      }))
      .filter((f) => f.helper !== null)
      .map((f) => `${f.path} calls ${f.helper![0]}`);
    expect(misfiled).toEqual([]);
  });

  it("reads a file's tier as Vitest reads its file tags", () => {
    // Spelled in two, so that this file's own tags are only the one at its top.
    const tag = ["@module", "tag"].join("-");
    expect(fileTagsOf(`// ${tag} unit\n\nimport {};`)).toEqual(["unit"]);
    expect(fileTagsOf(`/**\n * ${tag} system\n */`)).toEqual(["system"]);
    expect(fileTagsOf(`const s = "${tag} unit";`)).toEqual([]);
  });
});
