import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The machine has two cores and the integration suites time real processes:
    // running two files at once keeps them honest without starving each other.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
