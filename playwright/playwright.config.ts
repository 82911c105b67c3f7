import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

/**
 * End-to-end tests of the console: Debian's Chromium against the built console and a real split
 * deployment (PostgreSQL + Redis), prepared once by global-setup.ts for the whole suite.
 */
export default defineConfig({
  testDir: "./tests",
  outputDir: "../test-results/e2e",
  globalSetup: "./global-setup.ts",
  // One deployment, shared: tests run one after the other (the machine has two cores).
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    browserName: "chromium",
    viewport: { width: 1366, height: 768 },
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
  },
});
