import { defineConfig } from "vitest/config";

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
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The machine has two cores, but the integration suites spend much of their time waiting
    // on real processes (leases, kills, scale-ups): three files at once kept the cores about
    // 1.4 busy and took 408 s where two took 443–482 s, with no test starved.
    maxWorkers: 3,
    fileParallelism: true,
  },
});
