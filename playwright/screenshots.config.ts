import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

/**
 * `npm run screenshots`: the console with real data (the same deployment and runs as the
 * end-to-end suite, plus some traffic for the pool charts), written to docs/screenshots/.
 */
export default defineConfig({
  testDir: "./screenshots",
  testMatch: "*.shots.ts",
  outputDir: "../test-results/screenshots",
  globalSetup: "./global-setup.ts",
  workers: 1,
  timeout: 180_000,
  expect: { timeout: 20_000 },
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    viewport: { width: 1366, height: 768 },
    deviceScaleFactor: 1,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
});
