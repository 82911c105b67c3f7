import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { filesOfTiers, TEST_TIERS, TIMED, testFiles } from "./packages/testing/src/test-tiers.ts";

/** Each test file's tier, as it names it at its top (docs/testing.md). */
const tiers = filesOfTiers(testFiles(fileURLToPath(new URL(".", import.meta.url))));

export default defineConfig({
  plugins: [
    {
      // Lua and shell scripts are imported as text, as esbuild's text loader does in the builds.
      name: "scripts-as-text",
      transform(code, id) {
        if (id.endsWith(".lua") || id.endsWith(".sh"))
          return { code: `export default ${JSON.stringify(code)};`, map: null };
      },
    },
  ],
  test: {
    tags: [...Object.entries(TEST_TIERS).map(([name, description]) => ({ name, description })), TIMED],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The machine has two cores, but the integration suites spend much of their time waiting
    // on real processes (leases, kills, scale-ups): three files at once kept the cores about
    // 1.4 busy and took 408 s where two took 443–482 s, with no test starved.
    maxWorkers: 3,
    fileParallelism: true,
    projects: [
      { extends: true, test: { name: "unit", include: tiers.unit, sequence: { groupOrder: 0 } } },
      {
        extends: true,
        // The process tests run the built binaries: built from the current sources first.
        test: {
          name: "system",
          include: tiers.system,
          globalSetup: ["./vitest.global-setup.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // The system files that assert a latency, alone and after the others (their group runs last).
        test: {
          name: "system-timed",
          include: tiers.timed,
          globalSetup: ["./vitest.global-setup.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
