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
    // The machine has two cores and the integration suites time real processes:
    // running two files at once keeps them honest without starving each other.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
